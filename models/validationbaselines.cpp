#include "validationbaselines.h"

#include "experiment.h"
#include "scenario.h"

#include <QStringList>
#include <QtConcurrent/QtConcurrentRun>

namespace dl2console {

ValidationBaselines::ValidationBaselines(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] {
        const Outcome out = m_watcher.result();
        if (!out.error.isEmpty())
            Q_EMIT errorOccurred(out.error);
        m_references = out.references;
        Q_EMIT ready();
    });
}

ValidationBaselines::~ValidationBaselines()
{
    if (m_cancel)
        *m_cancel = true;
    m_watcher.waitForFinished();
}

std::vector<std::uint64_t> ValidationBaselines::parseSeeds(const QString &text)
{
    std::vector<std::uint64_t> seeds;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList ab = part.trimmed().split(QLatin1Char('-'));
        bool okA = false, okB = true;
        const quint64 a = ab[0].toULongLong(&okA);
        const quint64 b = ab.size() == 2 ? ab[1].toULongLong(&okB) : a;
        if (!okA || !okB || ab.size() > 2 || b < a || b - a > 1000)
            return {};
        for (quint64 s = a; s <= b; ++s)
            seeds.push_back(s);
    }
    return seeds;
}

void ValidationBaselines::compute(const QString &scenarioName, const QString &seedText)
{
    if (m_cancel)
        *m_cancel = true;
    m_references.clear();
    m_scenario = scenarioName;
    m_seeds = seedText;
    const auto seeds = parseSeeds(seedText);
    if (scenarioName.isEmpty() || seeds.empty()) {
        if (!scenarioName.isEmpty())
            Q_EMIT errorOccurred(tr("Reference lines: seeds must look like 100-104 or "
                                    "100,102, not '%1'")
                                     .arg(seedText));
        Q_EMIT ready();
        return;
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    const std::string name = scenarioName.toStdString();
    m_watcher.setFuture(QtConcurrent::run([=]() -> Outcome {
        Outcome out;
        try {
            const dl2::Scenario &scenario = dl2::scenarioByName(name);
            dl2::ExperimentSetup setup;
            setup.cluster = scenario.cluster;
            setup.profiles = dl2::ProfileSet::reference();
            setup.simulation = scenario.simulation;
            setup.schedulerConfig.scenario = scenario.name;
            for (auto seed : seeds) {
                setup.traces.push_back(scenario.trace(setup.profiles, seed));
                setup.seeds.push_back(seed);
            }
            setup.policies = {"drf", "optimus"};
            setup.threads = 1; // a training may have the other core
            const auto result = dl2::runExperiment(setup, {}, cancel.get());
            if (result.cancelled)
                return out;
            for (const auto &s : result.summary)
                out.references.push_back({QString::fromStdString(s.policy), s.meanAvgJct});
            if (!result.summary.empty())
                out.references.push_back(
                    {QStringLiteral("lower_bound"), result.summary.front().meanLowerBound});
        } catch (const std::exception &e) {
            out.error = tr("Reference lines: %1").arg(QString::fromStdString(e.what()));
        }
        return out;
    }));
}

} // namespace dl2console

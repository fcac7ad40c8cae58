#include "trainingrecipe.h"

#include "error.h"

#include <QJsonArray>

#include <map>

namespace dl2 {

std::vector<RecipeItem> trainingRecipe(const TrainingInfo &t)
{
    if (t.trainer == "init")
        return {};
    const auto text = [](const std::string &s, const char *orDefault = "") {
        return QJsonValue(QString::fromStdString(s.empty() ? std::string(orDefault) : s));
    };
    const auto key = [](const char *name) { return QString::fromLatin1(name); };
    const RecipeItem lr{key("learning_rate"), t.learningRate}, seed{key("seed"), qint64(t.seed)};
    const RecipeItem batch{key("batch_size"), t.batchSize}, buffer{key("buffer_size"), t.bufferSize};
    if (t.trainer == "rl-es")
        return {{key("es_pairs"), t.esPairs},
                {key("es_traces"), t.esTraces},
                {key("es_sigma"), t.esSigma},
                {key("es_scope"), text(t.esScope, "head")},
                lr,
                seed};
    if (t.trainer == "sl" && !t.slLabels.empty()) { // files from before 2026-12-04 lack these
        std::vector<RecipeItem> o{
            {key("labels"), text(t.slLabels)},
            {key("teacher_order"), text(t.teacherOrder)},
            {key("tie_window"), t.tieWindowSteps < 0    ? QJsonValue(key("all"))
                                : t.tieWindowSteps == 0 ? QJsonValue(key("never"))
                                                        : QJsonValue(qint64(t.tieWindowSteps))}};
        if (!t.tieInit.empty()) // shown only where it is not the default
            o.emplace_back(key("tie_init"), text(t.tieInit));
        o.insert(o.end(), {lr, seed, batch, buffer});
        return o;
    }
    if (t.trainer != "rl")
        return {lr, seed, batch, buffer};
    // What tells actor-critic runs apart first, then the settings rarely changed.
    QJsonArray ablations;
    for (const std::string &a : t.ablations)
        ablations.append(QString::fromStdString(a));
    std::vector<RecipeItem> o{{key("credit"), text(t.credit, "slot")}};
    if (t.credit == "split") {
        o.emplace_back(key("task_credit"), text(t.taskCredit, "progress"));
        if (t.taskMarginal == "added") // shown only where it is not the default
            o.emplace_back(key("task_marginal"), key("added"));
        if (!t.kindCredit.empty() && t.kindCredit != "sampled")
            o.emplace_back(key("kind_credit"), text(t.kindCredit));
        if (!t.rowCredit.empty() && t.rowCredit != "sampled")
            o.emplace_back(key("row_credit"), text(t.rowCredit));
        if (!t.rowScale.empty() && t.rowScale != "batch")
            o.emplace_back(key("row_scale"), text(t.rowScale));
        if (!t.stopCredit.empty() && t.stopCredit != "expected")
            o.emplace_back(key("stop_credit"), text(t.stopCredit));
    }
    if (t.tieWindowSteps < 0) // only shown where it was on: runs before 2026-12-06 lack it
        o.emplace_back(key("tie_window"), key("all"));
    if (t.typeStepScale != 1.0) // likewise: shown only where it is not the default
        o.emplace_back(key("type_step_scale"), t.typeStepScale);
    if (t.countStepScale != 1.0)
        o.emplace_back(key("count_step_scale"), t.countStepScale);
    if (t.kindEpsilon > 0.0) // likewise: runs before 2026-12-06 (afternoon) lack these
        o.emplace_back(key("kind_epsilon"), t.kindEpsilon);
    if (t.kindEntropyWeight > 0.0)
        o.emplace_back(key("kind_entropy_weight"), t.kindEntropyWeight);
    if (!t.optimizer.empty() && t.optimizer != "adam") // likewise: runs before 2026-12-08 lack it
        o.emplace_back(key("optimizer"), text(t.optimizer));
    if (!t.lrAnneal.empty() && t.lrAnneal != "constant")
        o.emplace_back(key("lr_anneal"), text(t.lrAnneal));
    o.insert(o.end(),
             {{key("reward"), key(t.unfinishedJobsReward ? "unfinished" : "progress")},
              {key("exploration"), text(t.exploration, "paper")},
              {key("ablations"), ablations},
              {key("control"), t.control},
              lr,
              seed});
    // The paper's rules fire with probability epsilon; the code's rules (reference) fire with
    // their own probabilities and read epsilon only as on (> 0) or off (0), so a reference run
    // shows it only when it switched them off (--ablation no-exploration is listed above).
    if (t.exploration != "reference" || t.epsilon <= 0.0)
        o.emplace_back(key("epsilon"), t.epsilon);
    o.insert(o.end(),
             {{key("entropy_weight"), t.entropyWeight},
              {key("discount"), t.discount},
              {key("replay"), text(t.replay)},
              {key("envs"), t.envs},
              {key("value_learning_rate"), t.valueLearningRate},
              {key("critic_warmup"), t.criticWarmup},
              {key("importance_clip"), t.importanceClip},
              {key("stop_epsilon"), t.stopEpsilon},
              batch,
              buffer});
    return o;
}

namespace {

// The command-line option that sets a recipe item, where it is not the item's name with '-'.
QString optionOf(const QString &key)
{
    static const std::map<QString, QString> renamed{
        {QStringLiteral("learning_rate"), QStringLiteral("--lr")},
        {QStringLiteral("batch_size"), QStringLiteral("--batch")},
        {QStringLiteral("buffer_size"), QStringLiteral("--buffer")},
        {QStringLiteral("entropy_weight"), QStringLiteral("--entropy")},
        {QStringLiteral("kind_entropy_weight"), QStringLiteral("--kind-entropy")},
        {QStringLiteral("value_learning_rate"), QStringLiteral("--value-lr")},
        {QStringLiteral("ablations"), QStringLiteral("--ablation")}};
    const auto it = renamed.find(key);
    return it != renamed.end() ? it->second
                               : QStringLiteral("--") + QString(key).replace(QLatin1Char('_'), QLatin1Char('-'));
}

QString shown(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Undefined:
        return QStringLiteral("not set");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("on") : QStringLiteral("off");
    case QJsonValue::Double:
        return QString::number(v.toDouble(), 'g', 8);
    case QJsonValue::Array: {
        QStringList items;
        for (const QJsonValue &e : v.toArray())
            items << e.toString();
        return items.isEmpty() ? QStringLiteral("none") : items.join(QLatin1Char(','));
    }
    default:
        return v.toString();
    }
}

} // namespace

void checkResumedRecipe(const TrainingInfo &resumed, const TrainingInfo &now, const std::string &origin)
{
    const auto items = [](const TrainingInfo &t) {
        std::map<QString, QJsonValue> m;
        for (const RecipeItem &i : trainingRecipe(t))
            m.insert(i);
        m.emplace(QStringLiteral("scenario"), QString::fromStdString(t.scenario));
        if (t.trainer == "sl")
            m.emplace(QStringLiteral("teacher"), QString::fromStdString(t.teacher));
        return m;
    };
    // Items shown only where they are not the default are missing from one side: both sides'.
    const std::map<QString, QJsonValue> was = items(resumed), is = items(now);
    std::map<QString, QJsonValue> keys = was;
    keys.insert(is.begin(), is.end());
    QStringList differences;
    for (const auto &[key, unused] : keys) {
        const auto a = was.find(key), b = is.find(key);
        const QJsonValue va = a != was.end() ? a->second : QJsonValue(QJsonValue::Undefined);
        const QJsonValue vb = b != is.end() ? b->second : QJsonValue(QJsonValue::Undefined);
        if (va != vb)
            differences << QStringLiteral("%1 (%2 in the run, %3 here)").arg(optionOf(key), shown(va), shown(vb));
    }
    if (differences.isEmpty())
        return;
    throw Error(origin + ": --resume continues the run that wrote it with the same options, but " +
                differences.join(QStringLiteral(", ")).toStdString() +
                (differences.size() == 1 ? " differs" : " differ") +
                ": give its options again (`dl2 policy show` lists them under \"training\"), or "
                "start a new run from it with --init");
}

} // namespace dl2

#include "modelprofile.h"

#include "error.h"
#include "fileio.h"
#include "profiles.pb.h"
#include "speed/optimusspeedmodel.h"
#include "speed/measurements.h"
#include "speed/rbfspeedmodel.h"

#include <QFile>
#include <cmath>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <set>

namespace dl2 {

namespace {

using google::protobuf::TextFormat;

// Collects the first TextFormat error with its (1-based) line.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector
{
public:
    void AddError(int line, google::protobuf::io::ColumnNumber column,
                  const std::string &message) override
    {
        if (m_line >= 0)
            return;
        m_line = line + 1;
        m_message = message + " (column " + std::to_string(column + 1) + ")";
    }
    void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string &) override {}
    int line() const { return m_line; }
    const std::string &message() const { return m_message; }

private:
    int m_line = -1;
    std::string m_message;
};

int lineOf(const TextFormat::ParseInfoTree *tree, const google::protobuf::Descriptor *type,
           const char *field, int index = -1)
{
    if (!tree)
        return 0;
    const google::protobuf::FieldDescriptor *fd = type->FindFieldByName(field);
    if (!fd)
        return 0;
    const TextFormat::ParseLocation loc = tree->GetLocation(fd, index);
    return loc.line >= 0 ? loc.line + 1 : 0;
}

ModelProfile fromMessage(const pb::ModelProfile &m, const std::string &origin,
                         const TextFormat::ParseInfoTree *tree, int index, int profileLine)
{
    const auto *type = pb::ModelProfile::descriptor();
    const std::string where = "profiles[" + std::to_string(index) + "]";
    auto fail = [&](const char *field, const std::string &message) -> Error {
        const int line = lineOf(tree, type, field);
        return Error::at(origin, line > 0 ? line : profileLine,
                         where + " ('" + m.name() + "'): " + message);
    };
    if (m.name().empty())
        throw fail("name", "field 'name' is missing");
    if (!(m.steps_per_epoch() > 0.0) || !std::isfinite(m.steps_per_epoch()))
        throw fail("steps_per_epoch", "field 'steps_per_epoch' must be > 0");
    if (m.epoch_fraction() < 0.0 || !std::isfinite(m.epoch_fraction()))
        throw fail("epoch_fraction", "field 'epoch_fraction' must be >= 0");
    if (m.worker().cpu() < 0 || m.worker().gpu() < 0 || m.ps().cpu() < 0 || m.ps().gpu() < 0)
        throw fail("worker", "resource demands must be >= 0");
    if (!m.has_optimus())
        throw fail("optimus", "field 'optimus' (the speed model coefficients) is missing");

    ModelProfile p;
    p.name = m.name();
    p.workerDemand = {m.worker().cpu(), m.worker().gpu()};
    p.psDemand = {m.ps().cpu(), m.ps().gpu()};
    p.stepsPerEpoch = m.steps_per_epoch();
    p.epochFraction = m.epoch_fraction();
    try {
        auto model = std::make_shared<const OptimusSpeedModel>(m.optimus());
        p.speed = model;
        p.estimate = model;
    } catch (const Error &e) {
        throw fail("optimus", std::string("field 'optimus': ") + e.what());
    }
    p.fitRmse = m.optimus().fit_rel_rmse();
    return p;
}

} // namespace

ProfileSet::ProfileSet(std::vector<ModelProfile> profiles) : m_profiles(std::move(profiles)) {}

std::optional<int> ProfileSet::indexOf(const std::string &name) const
{
    for (size_t i = 0; i < m_profiles.size(); ++i)
        if (m_profiles[i].name == name)
            return static_cast<int>(i);
    return std::nullopt;
}

ProfileSet ProfileSet::parseText(const std::string &text, const std::string &origin)
{
    pb::ProfileSet message;
    FirstErrorCollector errors;
    TextFormat::ParseInfoTree tree;
    TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    parser.WriteLocationsTo(&tree);
    if (!parser.ParseFromString(text, &message))
        throw Error::at(origin, errors.line(),
                        errors.message().empty() ? "cannot parse profile set" : errors.message());

    const google::protobuf::FieldDescriptor *profilesField =
        pb::ProfileSet::descriptor()->FindFieldByName("profiles");
    std::vector<ModelProfile> profiles;
    std::set<std::string> names;
    for (int i = 0; i < message.profiles_size(); ++i) {
        const TextFormat::ParseInfoTree *nested = tree.GetTreeForNested(profilesField, i);
        const int profileLine = tree.GetLocation(profilesField, i).line + 1;
        profiles.push_back(fromMessage(message.profiles(i), origin, nested, i, profileLine));
        if (!names.insert(profiles.back().name).second)
            throw Error::at(origin, lineOf(nested, pb::ModelProfile::descriptor(), "name"),
                            "duplicate profile name '" + profiles.back().name + "'");
    }
    if (profiles.empty())
        throw Error::at(origin, 0, "no profiles (expected one or more 'profiles { ... }' entries)");
    ProfileSet set(std::move(profiles));
    set.m_source = message.source();
    return set;
}

ProfileSet ProfileSet::loadText(const std::string &path)
{
    return parseText(readFile(path), path);
}

const char *toString(SpeedModelChoice choice)
{
    return choice == SpeedModelChoice::Measured ? "rbf" : "optimus";
}

SpeedModelChoice speedModelChoiceFromString(const std::string &name)
{
    if (name == "rbf" || name == "measured")
        return SpeedModelChoice::Measured;
    if (name == "optimus" || name == "fitted")
        return SpeedModelChoice::Fitted;
    throw Error("unknown speed model '" + name +
                "' (expected rbf: the measured table, exactly interpolated; or optimus: the "
                "fitted parametric model)");
}

ProfileSet ProfileSet::reference(SpeedModelChoice speed)
{
    static const ProfileSet fitted = [] {
        const QString name = QStringLiteral(":/dl2/profiles/reference.textproto");
        QFile file(name);
        if (!file.open(QIODevice::ReadOnly))
            throw Error(name.toStdString() + ": built-in resource missing (" +
                        file.errorString().toStdString() + ")");
        const QByteArray data = file.readAll();
        return parseText(std::string(data.constData(), static_cast<size_t>(data.size())),
                         name.toStdString());
    }();
    if (speed == SpeedModelChoice::Fitted)
        return fitted;
    static const ProfileSet measured = [] {
        ProfileSet p = fitted;
        p.useMeasuredSpeeds(builtinMeasurements(), kBuiltinSpeedTable);
        return p;
    }();
    return measured;
}

std::string ProfileSet::toText() const
{
    pb::ProfileSet message;
    message.set_source(m_source);
    for (const ModelProfile &p : m_profiles) {
        pb::ModelProfile *m = message.add_profiles();
        m->set_name(p.name);
        m->mutable_worker()->set_cpu(p.workerDemand[0]);
        m->mutable_worker()->set_gpu(p.workerDemand[1]);
        m->mutable_ps()->set_cpu(p.psDemand[0]);
        m->mutable_ps()->set_gpu(p.psDemand[1]);
        m->set_steps_per_epoch(p.stepsPerEpoch);
        m->set_epoch_fraction(p.epochFraction);
        // The coefficients are the fitted model's: `estimate`, or `speed` when that is parametric.
        const auto *optimus = dynamic_cast<const OptimusSpeedModel *>(p.estimate.get());
        if (!optimus)
            optimus = dynamic_cast<const OptimusSpeedModel *>(p.speed.get());
        if (optimus)
            *m->mutable_optimus() = optimus->toProto();
    }
    std::string text;
    TextFormat::Printer printer;
    printer.SetUseShortRepeatedPrimitives(true);
    if (!printer.PrintToString(message, &text))
        throw Error("cannot print profile set");
    return text;
}

void ProfileSet::useMeasuredSpeeds(const std::vector<SpeedSample> &samples,
                                   const std::string &origin)
{
    std::vector<SpeedModelPtr> models;
    for (const ModelProfile &p : m_profiles) {
        std::vector<SpeedSample> mine;
        for (const SpeedSample &s : samples)
            if (s.model == p.name)
                mine.push_back(s);
        if (mine.empty())
            throw Error::at(origin, 0, "no measurements for model '" + p.name + "'");
        models.push_back(std::make_shared<const RbfSpeedModel>(mine, origin));
    }
    // Only swap once every profile succeeded.
    for (size_t i = 0; i < m_profiles.size(); ++i)
        m_profiles[i].speed = models[i];
}

void ProfileSet::useEstimatedSpeeds()
{
    for (const ModelProfile &p : m_profiles)
        if (!p.estimate)
            throw Error("profile '" + p.name + "' has no fitted speed model to use as its speed");
    for (ModelProfile &p : m_profiles)
        p.speed = p.estimate;
}

} // namespace dl2

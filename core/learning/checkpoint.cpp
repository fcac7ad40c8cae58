#include "checkpoint.h"

#include "checkpoint.pb.h"
#include "error.h"
#include "fileio.h"
#include "policynetwork.h"
#include "rng.h"

#include <QByteArray>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace dl2 {

namespace {

constexpr char kMagic[8] = {'D', 'L', '2', 'C', 'K', 'P', 'T', '\0'};

std::uint64_t fnv1a(const std::string &bytes)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

void putU32(std::string &out, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(char((v >> (8 * i)) & 0xff));
}
std::uint32_t getU32(const std::string &in, size_t at)
{
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= std::uint32_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
    return v;
}

Error bad(const std::string &origin, const std::string &what)
{
    return Error(origin + ": " + what);
}

std::string encodeWeights(const ParameterSet &parameters, bool omitValue)
{
    pb::Weights w;
    for (const auto &[name, t] : parameters) {
        if (omitValue && isValueParameter(name))
            continue;
        auto *tensor = w.add_tensors();
        tensor->set_name(name);
        for (auto d : t.shape)
            tensor->add_shape(d);
        tensor->mutable_data()->Add(t.data.begin(), t.data.end());
    }
    const std::string plain = w.SerializeAsString();
    const QByteArray packed = qCompress(QByteArray::fromRawData(plain.data(), qsizetype(plain.size())));
    return std::string(packed.constData(), size_t(packed.size()));
}

// Returns the inflated record as a QByteArray: protobuf parses it in place, without a copy
// (with the window-60 policy the record is 15 MB, and every fresh buffer of that size costs
// thousands of page faults).
QByteArray uncompressWeights(const std::string &stored, const std::string &origin)
{
    // qCompress's first 4 bytes: the uncompressed size, big-endian. A corrupt header would
    // make qUncompress try to allocate up to 4 GB; the record never exceeds 1 GB.
    if (stored.size() < 4)
        throw bad(origin, "corrupt weights record (compressed record too short)");
    const std::uint32_t size = (std::uint32_t(std::uint8_t(stored[0])) << 24) |
                               (std::uint32_t(std::uint8_t(stored[1])) << 16) |
                               (std::uint32_t(std::uint8_t(stored[2])) << 8) |
                               std::uint32_t(std::uint8_t(stored[3]));
    if (size > (1u << 30))
        throw bad(origin, "corrupt weights record (claims " + std::to_string(size) +
                              " bytes uncompressed)");
    QByteArray plain = qUncompress(QByteArray::fromRawData(stored.data(), qsizetype(stored.size())));
    if (plain.isEmpty() && size != 0)
        throw bad(origin, "corrupt weights record (zlib data does not inflate)");
    return plain;
}

// Takes the record by value and frees it once parsed, and each parsed tensor once copied, so
// that at most two copies of a tensor are alive at a time.
ParameterSet decodeWeights(QByteArray bytes, const std::string &origin)
{
    pb::Weights w;
    if (bytes.size() > std::numeric_limits<int>::max() ||
        !w.ParseFromArray(bytes.constData(), int(bytes.size())))
        throw bad(origin, "corrupt weights record (dl2.pb.Weights does not parse)");
    bytes = QByteArray();
    ParameterSet p;
    for (auto &tensor : *w.mutable_tensors()) {
        ParameterTensor t;
        t.shape.assign(tensor.shape().begin(), tensor.shape().end());
        t.data.assign(tensor.data().begin(), tensor.data().end());
        google::protobuf::RepeatedField<float>().Swap(tensor.mutable_data());
        if (!p.emplace(tensor.name(), std::move(t)).second)
            throw bad(origin, "corrupt weights record: parameter '" + tensor.name() +
                                  "' appears twice");
    }
    return p;
}

LegacyArchiveDecoder &legacyDecoder()
{
    static LegacyArchiveDecoder decoder = nullptr;
    return decoder;
}

std::string shapeText(const std::vector<std::int64_t> &v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0)
            s += ',';
        s += std::to_string(v[i]); // (not "," + ...: GCC 12 -Wrestrict false positive)
    }
    return s + "]";
}

} // namespace

void setLegacyArchiveDecoder(LegacyArchiveDecoder decoder) { legacyDecoder() = decoder; }

void checkParameters(const ParameterSet &parameters, const PolicySpec &spec,
                     const std::string &origin, bool withoutValue)
{
    auto expected = expectedParameters(spec);
    if (withoutValue)
        std::erase_if(expected, [](const auto &e) { return isValueParameter(e.first); });
    for (const auto &[name, shape] : expected) {
        const auto it = parameters.find(name);
        if (it == parameters.end())
            throw bad(origin, "network weights lack parameter '" + name + "'");
        if (it->second.shape != shape)
            throw bad(origin, "mismatched dimensions: parameter '" + name + "' is " +
                                  shapeText(it->second.shape) + ", the metadata implies " +
                                  shapeText(shape));
        std::int64_t n = 1;
        for (auto d : shape)
            n *= d;
        if (std::int64_t(it->second.data.size()) != n)
            throw bad(origin, "parameter '" + name + "' holds " +
                                  std::to_string(it->second.data.size()) + " values, its shape " +
                                  shapeText(shape) + " needs " + std::to_string(n));
        for (float v : it->second.data)
            if (!std::isfinite(v))
                throw bad(origin, "parameter '" + name + "' holds non-finite values");
    }
    if (parameters.size() != expected.size())
        for (const auto &[name, t] : parameters) {
            bool known = false;
            for (const auto &e : expected)
                known = known || e.first == name;
            if (!known)
                throw bad(origin, "unexpected parameter '" + name + "' for this policy");
        }
}

std::string encodeCheckpoint(const PolicySpec &spec, const TrainingInfo &info,
                             const NetworkArchive &network, bool hasOptimizer)
{
    hasOptimizer = hasOptimizer && !network.optimizer.empty();
    // A deliverable file (no optimizer state) leaves out a value network that was never
    // trained: for the faithful dl2's wide inputs it is as large as the policy and random.
    const bool omitValue = !info.valueTrained && !hasOptimizer;
    const std::string weights = encodeWeights(network.parameters, omitValue);
    const std::string archive = hasOptimizer ? network.optimizer : std::string();
    pb::CheckpointMeta m;
    m.set_format_version(kCheckpointFormatVersion);
    m.set_policy_kind(toString(spec.kind));
    m.set_window(spec.window);
    m.set_job_types(spec.types);
    m.set_job_feature_dim(spec.jobDim());
    m.set_global_feature_dim(spec.globalDim());
    m.set_state_dim(spec.stateDim());
    m.set_action_dim(spec.actionDim());
    m.mutable_features()->set_one_hot_type(spec.features.oneHotType);
    m.mutable_features()->set_normalise(spec.features.normalise);
    m.mutable_features()->set_best_setting(spec.features.bestSetting);
    m.mutable_features()->set_counts(toString(spec.features.counts));
    m.set_hidden1(spec.hidden1);
    m.set_hidden2(spec.hidden2);
    m.set_initial_bundles(spec.initialBundles);
    m.set_feasibility_mask(spec.feasibilityMask);
    m.set_decode(toString(spec.decode));
    auto *h = m.mutable_hyper();
    h->set_learning_rate(info.learningRate);
    h->set_batch_size(info.batchSize);
    h->set_buffer_size(info.bufferSize);
    h->set_entropy_weight(info.entropyWeight);
    h->set_exploration_epsilon(info.epsilon);
    h->set_exploration_threshold(info.threshold);
    h->set_discount(info.discount);
    h->set_replay(info.replay);
    h->set_teacher(info.teacher);
    h->set_envs(info.envs);
    for (const auto &a : info.ablations)
        h->add_ablations(a);
    h->set_importance_clip(info.importanceClip);
    h->set_unfinished_jobs_reward(info.unfinishedJobsReward);
    h->set_es_pairs(info.esPairs);
    h->set_es_traces(info.esTraces);
    h->set_es_sigma(info.esSigma);
    h->set_es_scope(info.esScope);
    h->set_credit(info.credit);
    h->set_value_learning_rate(info.valueLearningRate);
    h->set_critic_warmup(info.criticWarmup);
    h->set_stop_epsilon(info.stopEpsilon);
    h->set_kind_epsilon(info.kindEpsilon);
    h->set_kind_entropy_weight(info.kindEntropyWeight);
    h->set_control(info.control);
    h->set_exploration(info.exploration);
    h->set_task_credit(info.taskCredit);
    h->set_task_marginal(info.taskMarginal);
    h->set_kind_credit(info.kindCredit);
    h->set_row_credit(info.rowCredit);
    h->set_row_scale(info.rowScale);
    h->set_stop_credit(info.stopCredit);
    h->set_sl_labels(info.slLabels);
    h->set_teacher_order(info.teacherOrder);
    h->set_tie_window_steps(info.tieWindowSteps);
    h->set_tie_init(info.tieInit);
    h->set_type_step_scale(info.typeStepScale);
    h->set_count_step_scale(info.countStepScale);
    h->set_optimizer(info.optimizer);
    h->set_lr_anneal(info.lrAnneal);
    m.set_scenario(info.scenario);
    m.set_step(info.step);
    m.set_validation_avg_jct(info.validationAvgJct);
    m.set_trainer(info.trainer);
    m.set_has_optimizer(hasOptimizer);
    m.set_archive_size(archive.size());
    m.set_archive_checksum(fnv1a(archive));
    m.set_seed(info.seed);
    m.set_value_trained(info.valueTrained);
    if (info.resume.present) {
        auto *r = m.mutable_resume();
        r->set_present(true);
        r->set_step(info.resume.step);
        for (auto x : info.resume.rng)
            r->add_rng(x);
        r->set_next_seed(info.resume.nextSeed);
        r->set_best_validation_avg_jct(info.resume.bestValidationAvgJct);
        r->set_best_step(info.resume.bestStep);
        for (double x : info.resume.values)
            r->add_values(x);
        r->set_world_size(info.resume.worldSize);
    }
    m.set_weights_encoding("zlib");
    m.set_value_omitted(omitValue);
    m.set_weights_size(weights.size());
    m.set_weights_checksum(fnv1a(weights));
    const std::string meta = m.SerializeAsString();

    std::string out(kMagic, sizeof kMagic);
    putU32(out, kCheckpointFormatVersion);
    putU32(out, std::uint32_t(meta.size()));
    out += meta;
    out += weights;
    out += archive;
    return out;
}

Checkpoint parseCheckpoint(const std::string &bytes, const std::string &origin,
                           std::optional<PolicyKind> expected)
{
    if (bytes.empty())
        throw bad(origin, "empty file, not a DL2 checkpoint");
    if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw bad(origin, "not a DL2 checkpoint (bad magic; expected a .dl2ckpt file)");
    const std::uint32_t version = getU32(bytes, 8);
    if (version != kCheckpointFormatVersion && version != 1)
        throw bad(origin, "unsupported checkpoint format version " + std::to_string(version) +
                              " (this build reads versions 1 and " +
                              std::to_string(kCheckpointFormatVersion) + ")");
    const std::uint32_t metaSize = getU32(bytes, 12);
    if (16ull + metaSize > bytes.size())
        throw bad(origin, "truncated: metadata record needs " + std::to_string(metaSize) +
                              " bytes, file has " + std::to_string(bytes.size() - 16));
    pb::CheckpointMeta m;
    if (!m.ParseFromArray(bytes.data() + 16, int(metaSize)))
        throw bad(origin, "corrupt metadata record (dl2.pb.CheckpointMeta does not parse)");
    if (m.format_version() != version)
        throw bad(origin, "metadata field format_version is " +
                              std::to_string(m.format_version()) + ", the header says " +
                              std::to_string(version));
    const std::uint64_t weightsSize = version == 1 ? 0 : m.weights_size();
    if (weightsSize > bytes.size() - 16 - metaSize)
        throw bad(origin, "truncated: weights record has " +
                              std::to_string(bytes.size() - 16 - metaSize) + " of " +
                              std::to_string(weightsSize) + " bytes");
    const std::string weights = bytes.substr(16 + metaSize, weightsSize);
    if (fnv1a(weights) != m.weights_checksum() && version != 1)
        throw bad(origin, "corrupt: weights record checksum mismatch");
    const size_t archiveStart = 16 + metaSize + weightsSize;
    const size_t archiveSize = bytes.size() - archiveStart;
    if (archiveSize < m.archive_size())
        throw bad(origin, "truncated: network archive has " + std::to_string(archiveSize) +
                              " of " + std::to_string(m.archive_size()) + " bytes");
    if (archiveSize > m.archive_size())
        throw bad(origin, "corrupt: " + std::to_string(archiveSize - m.archive_size()) +
                              " unexpected bytes after the network archive");
    Checkpoint c;
    c.origin = origin;
    c.archive = bytes.substr(archiveStart);
    if (fnv1a(c.archive) != m.archive_checksum())
        throw bad(origin, "corrupt: network archive checksum mismatch");

    PolicySpec &s = c.spec;
    try {
        s.kind = policyKindFromString(m.policy_kind());
    } catch (const Error &e) {
        throw bad(origin, std::string("metadata field policy_kind: ") + e.what());
    }
    if (expected && *expected != s.kind)
        throw bad(origin, std::string("wrong policy kind: the file holds a '") +
                              toString(s.kind) + "' policy, expected '" + toString(*expected) +
                              "'");
    s.window = m.window();
    s.types = m.job_types();
    s.features.oneHotType = m.features().one_hot_type();
    s.features.normalise = m.features().normalise();
    s.features.bestSetting = m.features().best_setting();
    try {
        const std::string &counts = m.features().counts();
        s.features.counts = counts.empty() ? CountFeatures::Scalar : countFeaturesFromString(counts);
    } catch (const Error &e) {
        throw bad(origin, std::string("metadata field features.counts: ") + e.what());
    }
    if (s.kind != PolicyKind::Dl2 && s.features.counts != CountFeatures::Scalar)
        throw bad(origin, "metadata field features.counts: per-type count features are dl2's only");
    s.hidden1 = m.hidden1();
    s.hidden2 = m.hidden2();
    s.initialBundles = m.initial_bundles();
    s.feasibilityMask = m.feasibility_mask();
    try {
        s.decode = m.decode().empty() ? Decode::Greedy : decodeFromString(m.decode());
    } catch (const Error &e) {
        throw bad(origin, std::string("metadata field decode: ") + e.what());
    }
    auto field = [&](const char *name, long long got, long long want) {
        if (got != want)
            throw bad(origin, std::string("mismatched dimensions: metadata field ") + name +
                                  " is " + std::to_string(got) + ", the policy it describes needs " +
                                  std::to_string(want));
    };
    if (s.types < 1 || s.types > 256)
        throw bad(origin, "metadata field job_types out of range: " + std::to_string(s.types));
    if (s.hidden1 < 1 || s.hidden1 > 4096 || s.hidden2 < 1 || s.hidden2 > 4096)
        throw bad(origin, "metadata fields hidden1/hidden2 out of range");
    if (s.kind == PolicyKind::Dl2 && (s.window < 1 || s.window > 4096))
        throw bad(origin, "metadata field window out of range: " + std::to_string(s.window));
    field("job_feature_dim", m.job_feature_dim(), s.jobDim());
    field("global_feature_dim", m.global_feature_dim(), s.globalDim());
    field("state_dim", m.state_dim(), s.stateDim());
    field("action_dim", m.action_dim(), s.actionDim());

    TrainingInfo &i = c.info;
    const auto &h = m.hyper();
    i.trainer = m.trainer();
    i.scenario = m.scenario();
    i.teacher = h.teacher();
    i.replay = h.replay();
    i.learningRate = h.learning_rate();
    i.batchSize = h.batch_size();
    i.bufferSize = h.buffer_size();
    i.envs = h.envs();
    i.entropyWeight = h.entropy_weight();
    i.epsilon = h.exploration_epsilon();
    i.threshold = h.exploration_threshold();
    i.discount = h.discount();
    i.importanceClip = h.importance_clip();
    i.unfinishedJobsReward = h.unfinished_jobs_reward();
    i.ablations.assign(h.ablations().begin(), h.ablations().end());
    i.esPairs = h.es_pairs();
    i.esTraces = h.es_traces();
    i.esSigma = h.es_sigma();
    i.esScope = h.es_scope();
    i.credit = h.credit();
    i.valueLearningRate = h.value_learning_rate();
    i.criticWarmup = h.critic_warmup();
    i.stopEpsilon = h.stop_epsilon();
    i.kindEpsilon = h.kind_epsilon();
    i.kindEntropyWeight = h.kind_entropy_weight();
    i.control = h.control();
    i.exploration = h.exploration();
    i.taskCredit = h.task_credit();
    i.taskMarginal = h.task_marginal();
    i.kindCredit = h.kind_credit();
    i.rowCredit = h.row_credit();
    i.rowScale = h.row_scale();
    i.stopCredit = h.stop_credit();
    i.slLabels = h.sl_labels();
    i.teacherOrder = h.teacher_order();
    i.tieWindowSteps = h.tie_window_steps();
    i.tieInit = h.tie_init();
    i.typeStepScale = h.type_step_scale() > 0.0 ? h.type_step_scale() : 1.0;
    i.countStepScale = h.count_step_scale() > 0.0 ? h.count_step_scale() : 1.0;
    i.optimizer = h.optimizer();
    i.lrAnneal = h.lr_anneal();
    // Files from before the field (and before weights_encoding): an actor-critic file past its
    // first update had a trained value network unless the run had no critic (the no-value
    // ablation, a credit by whole rollouts); of the others nothing says so.
    const bool critic = std::find(i.ablations.begin(), i.ablations.end(), "no-value") == i.ablations.end() &&
                        i.credit != "episode" && i.credit != "episode-job" && i.credit != "vine";
    // (A file with weights_encoding was written after the field existed: it says so itself.)
    i.valueTrained = m.value_trained() ||
                     (m.weights_encoding().empty() && m.trainer() == "rl" && m.step() > 0 && critic);
    i.step = m.step();
    i.validationAvgJct = m.validation_avg_jct();
    i.seed = m.seed();
    if (m.has_resume() && m.resume().present()) {
        const auto &r = m.resume();
        i.resume.present = true;
        i.resume.step = r.step();
        i.resume.rng.assign(r.rng().begin(), r.rng().end());
        i.resume.nextSeed = r.next_seed();
        i.resume.bestValidationAvgJct = r.best_validation_avg_jct();
        i.resume.bestStep = r.best_step();
        i.resume.values.assign(r.values().begin(), r.values().end());
        i.resume.worldSize = r.world_size();
    }
    c.hasOptimizer = m.has_optimizer() && !c.archive.empty();
    if (version == 1) {
        if (!legacyDecoder())
            throw bad(origin, "checkpoint format version 1 keeps the weights in a libtorch "
                              "archive, which only dl2-train reads; convert it once with "
                              "`dl2 train convert " + origin + " -o NEW.dl2ckpt`");
        c.parameters = std::make_shared<const ParameterSet>(legacyDecoder()(c.archive, s, origin));
    } else {
        if (m.weights_encoding() != "" && m.weights_encoding() != "zlib")
            throw bad(origin, "metadata field weights_encoding: unknown encoding '" +
                                  m.weights_encoding() + "' (known: zlib)");
        ParameterSet p = decodeWeights(
            m.weights_encoding() == "zlib"
                ? uncompressWeights(weights, origin)
                : QByteArray::fromRawData(weights.data(), qsizetype(weights.size())),
            origin);
        if (m.value_omitted()) {
            if (i.valueTrained)
                throw bad(origin, "metadata says the value network was trained and omitted: a "
                                  "trained value network is always stored");
            for (const auto &[name, t] : p)
                if (isValueParameter(name))
                    throw bad(origin, "metadata says the value network is omitted, but the "
                                      "weights hold '" + name + "'");
        }
        c.valueOmitted = m.value_omitted();
        checkParameters(p, s, origin, c.valueOmitted);
        c.parameters = std::make_shared<const ParameterSet>(std::move(p));
    }
    return c;
}

ParameterSet freshValueNetwork(const Checkpoint &c)
{
    ParameterSet p;
    if (!c.valueOmitted)
        return p;
    Rng rng(c.info.seed ^ 0x7a1e'0000'0000'0001ull);
    const auto expected = expectedParameters(c.spec);
    for (const auto &[name, shape] : expected) {
        if (!isValueParameter(name))
            continue;
        // fan-in: a weight's [out, in]; a bias takes its layer's weight's.
        const std::string layer = name.substr(0, name.rfind('.'));
        std::int64_t fanIn = 1;
        for (const auto &[other, otherShape] : expected)
            if (other == layer + ".weight")
                fanIn = otherShape.size() == 2 ? otherShape[1] : 1;
        const double bound = 1.0 / std::sqrt(double(std::max<std::int64_t>(fanIn, 1)));
        ParameterTensor t;
        t.shape = shape;
        std::int64_t n = 1;
        for (auto d : shape)
            n *= d;
        t.data.resize(size_t(n));
        for (float &v : t.data)
            v = float((2.0 * rng.uniform() - 1.0) * bound);
        p.emplace(name, std::move(t));
    }
    return p;
}

Checkpoint readCheckpoint(const std::string &path, std::optional<PolicyKind> expected)
{
    QFile file(QString::fromStdString(path));
    if (!file.exists())
        throw Error(path + ": checkpoint file does not exist" +
                    (path.find('/') == std::string::npos
                         ? " (nor is it a shipped policy's name: `dl2 policy list` shows them)"
                         : ""));
    if (!file.open(QIODevice::ReadOnly))
        throw Error(path + ": cannot open checkpoint (" + file.errorString().toStdString() + ")");
    const QByteArray data = file.readAll();
    return parseCheckpoint(std::string(data.constData(), size_t(data.size())), path, expected);
}

void writeCheckpoint(const std::string &path, const PolicySpec &spec, const TrainingInfo &info,
                     const ParameterSet &parameters)
{
    writeFileAtomically(path, encodeCheckpoint(spec, info, NetworkArchive{parameters, {}}, false));
}

} // namespace dl2

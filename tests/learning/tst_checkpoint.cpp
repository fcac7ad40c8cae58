// Checkpoint round trip and every corrupt-file case: each must throw dl2::Error naming the
// file and what is wrong, never crash and never load a wrong policy.
#include "checkpoint.h"
#include "checkpoint.pb.h"
#include "dl2policy.h"
#include "error.h"
#include "fileio.h"
#include "learner.h"
#include "policynetwork.h"
#include "registerpolicies.h"
#include "scheduler.h"

#include <QByteArray>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

#include <limits>

using namespace dl2;

class TestCheckpoint : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char *name) const { return m_dir.path().toStdString() + "/" + name; }

    static PolicySpec smallSpec(PolicyKind kind)
    {
        PolicySpec s = defaultSpec(kind, 4, 8);
        s.hidden1 = 16;
        s.hidden2 = 8;
        return s;
    }

    // Expects dl2::Error whose message names the file and contains `what`.
    void expectError(const std::string &file, const std::string &what,
                     std::optional<PolicyKind> kind = {})
    {
        try {
            readCheckpoint(file, kind);
            QFAIL(("no error for " + what).c_str());
        } catch (const Error &e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find(file) != std::string::npos, msg.c_str());
            QVERIFY2(msg.find(what) != std::string::npos, msg.c_str());
        }
    }

    // A weights-only file with its metadata record and stored weights changed by `edit`; the
    // sizes and the checksum are made right again, so only what `edit` did is wrong.
    template<typename Edit>
    static std::string rewritten(const std::string &bytes, Edit edit)
    {
        std::uint32_t metaSize = 0;
        for (int k = 0; k < 4; ++k)
            metaSize |= std::uint32_t(std::uint8_t(bytes[size_t(12 + k)])) << (8 * k);
        pb::CheckpointMeta m;
        if (!m.ParseFromArray(bytes.data() + 16, int(metaSize)))
            return {};
        std::string weights = bytes.substr(16 + metaSize, m.weights_size());
        edit(m, weights);
        std::uint64_t h = 1469598103934665603ull; // FNV-1a 64
        for (unsigned char c : weights)
            h = (h ^ c) * 1099511628211ull;
        m.set_weights_size(weights.size());
        m.set_weights_checksum(h);
        const std::string meta = m.SerializeAsString();
        std::string out = bytes.substr(0, 12);
        for (int k = 0; k < 4; ++k)
            out += char((meta.size() >> (8 * k)) & 0xff);
        return out + meta + weights;
    }

    static std::string inflated(const std::string &stored)
    {
        const QByteArray plain = qUncompress(QByteArray::fromRawData(stored.data(), qsizetype(stored.size())));
        return std::string(plain.constData(), size_t(plain.size()));
    }

    // A file as written before weights_encoding and value_omitted existed (plain weights
    // record, every parameter stored; `valueTrained` as then recorded).
    static std::string olderFile(const PolicySpec &spec, TrainingInfo info, const ParameterSet &params,
                                 bool valueTrained)
    {
        info.valueTrained = true; // store the value network
        return rewritten(encodeCheckpoint(spec, info, NetworkArchive{params, {}}, false),
                         [&](pb::CheckpointMeta &m, std::string &weights) {
                             m.clear_weights_encoding();
                             m.set_value_trained(valueTrained);
                             weights = inflated(weights);
                         });
    }

    std::string validBytes(PolicyKind kind = PolicyKind::Dl2)
    {
        const PolicySpec spec = smallSpec(kind);
        return encodeCheckpoint(spec, TrainingInfo{}, NetworkArchive{initialParameters(spec, 1), {}}, false);
    }

private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("dl2") << QStringLiteral("dl2");
        QTest::newRow("dl2-plus") << QStringLiteral("dl2-plus");
        QTest::newRow("dl2-plus-best-setting") << QStringLiteral("dl2-plus-best-setting");
    }
    void roundTrip()
    {
        QFETCH(QString, kind);
        const bool bestSetting = kind.endsWith(QStringLiteral("-best-setting"));
        if (bestSetting)
            kind.chop(int(std::strlen("-best-setting")));
        PolicySpec spec = smallSpec(policyKindFromString(kind.toStdString()));
        spec.features.bestSetting = bestSetting;
        const ParameterSet params = initialParameters(spec, 42);
        TrainingInfo info;
        info.trainer = "rl";
        info.scenario = "dl2-small";
        info.learningRate = 1e-4;
        info.step = 1234;
        info.validationAvgJct = 27.5;
        info.ablations = {"no-replay"};
        info.exploration = "reference";
        info.taskCredit = "remaining";
        info.valueTrained = true; // kept in the file (an untrained one is left out, below)
        const std::string file = path("round.dl2ckpt");
        writeCheckpoint(file, spec, info, params);
        const Checkpoint c = readCheckpoint(file, spec.kind);
        QCOMPARE(int(c.spec.kind), int(spec.kind));
        QCOMPARE(c.spec.window, spec.window);
        QCOMPARE(c.spec.hidden1, 16);
        QCOMPARE(c.spec.features.oneHotType, spec.features.oneHotType);
        QCOMPARE(c.spec.features.bestSetting, bestSetting);
        QCOMPARE(c.spec.jobDim(), spec.jobDim());
        QCOMPARE(c.info.step, 1234LL);
        QCOMPARE(c.info.validationAvgJct, 27.5);
        QCOMPARE(c.info.scenario, std::string("dl2-small"));
        QCOMPARE(c.info.ablations, std::vector<std::string>{"no-replay"});
        QCOMPARE(c.info.exploration, std::string("reference"));
        QCOMPARE(c.info.taskCredit, std::string("remaining"));
        QVERIFY(!c.hasOptimizer);
        QCOMPARE(c.parameters->size(), params.size());
        for (const auto &[name, t] : params) {
            QCOMPARE(c.parameters->at(name).shape, t.shape);
            QCOMPARE(c.parameters->at(name).data, t.data);
        }
        // Same seed, same initial weights.
        QCOMPARE(initialParameters(spec, 42).begin()->second.data, params.begin()->second.data);
    }

    void missingFile() { expectError(path("does-not-exist.dl2ckpt"), "does not exist"); }

    void emptyFile()
    {
        const std::string file = path("empty.dl2ckpt");
        writeFileAtomically(file, "");
        expectError(file, "empty file");
    }

    void garbage()
    {
        const std::string file = path("garbage.dl2ckpt");
        writeFileAtomically(file, std::string(4000, 'x'));
        expectError(file, "not a DL2 checkpoint");
    }

    void truncated_data()
    {
        QTest::addColumn<int>("keep");
        QTest::newRow("header") << 10;
        QTest::newRow("metadata") << 30;
        QTest::newRow("archive-start") << -2000;
        QTest::newRow("archive-end") << -1;
    }
    void truncated()
    {
        QFETCH(int, keep);
        const std::string bytes = validBytes();
        const size_t n = keep > 0 ? size_t(keep) : bytes.size() - size_t(-keep);
        const std::string file = path("truncated.dl2ckpt");
        writeFileAtomically(file, bytes.substr(0, n));
        expectError(file, keep == 10 ? "not a DL2 checkpoint" : "truncated");
    }

    void flippedArchiveByte()
    {
        std::string bytes = validBytes();
        bytes[bytes.size() - 100] ^= 0x5a;
        const std::string file = path("flipped.dl2ckpt");
        writeFileAtomically(file, bytes);
        expectError(file, "checksum");
    }

    void badValuesWithValidChecksum_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("error");
        QTest::newRow("too few values") << 0 << QStringLiteral("holds 7 values");
        QTest::newRow("non-finite") << 1 << QStringLiteral("non-finite");
        QTest::newRow("unexpected parameter") << 2 << QStringLiteral("unexpected parameter 'policy.extra'");
    }
    void badValuesWithValidChecksum()
    {
        // The records frame and check out; what they hold does not fit the policy.
        QFETCH(int, what);
        QFETCH(QString, error);
        const PolicySpec spec = smallSpec(PolicyKind::Dl2);
        ParameterSet p = initialParameters(spec, 1);
        if (what == 0) {
            p.at("policy.fc2.bias").data.resize(7); // shape [8]
        } else if (what == 1) {
            p.at("policy.fc1.weight").data[7] = std::numeric_limits<float>::quiet_NaN();
        } else {
            p["policy.extra"] = ParameterTensor{{1}, {0.0f}};
        }
        const std::string file = path("badvalues.dl2ckpt");
        writeFileAtomically(file, encodeCheckpoint(spec, TrainingInfo{}, NetworkArchive{p, {}}, false));
        expectError(file, error.toStdString());
    }

    void optimizerStateRoundTrip()
    {
        const PolicySpec spec = smallSpec(PolicyKind::Dl2Plus);
        const std::string file = path("optimizer.dl2ckpt");
        const NetworkArchive a{initialParameters(spec, 3), std::string(500, '\x42')};
        writeFileAtomically(file, encodeCheckpoint(spec, TrainingInfo{}, a, true));
        const Checkpoint c = readCheckpoint(file);
        QVERIFY(c.hasOptimizer);
        QCOMPARE(c.archive, a.optimizer);
        QCOMPARE(c.parameters->at("policy.stop2.bias").data, a.parameters.at("policy.stop2.bias").data);
        // hasOptimizer without a state, or a state without hasOptimizer, stores none.
        writeFileAtomically(file, encodeCheckpoint(spec, TrainingInfo{}, a, false));
        QVERIFY(!readCheckpoint(file).hasOptimizer);
        QVERIFY(readCheckpoint(file).archive.empty());
    }

    void formatVersion1NeedsTheTrainingLibrary()
    {
        // A file of format version 1 (the weights in a libtorch archive), as dl2 wrote them
        // before version 2: only a process that registered the libtorch decoder reads it.
        const QString v1 = qEnvironmentVariable("DL2_SOURCE_DIR") +
                           QStringLiteral("/tests/learning/fixtures/dl2-tiny-v1.dl2ckpt");
        QVERIFY2(QFile::exists(v1), qPrintable(v1));
        setLegacyArchiveDecoder(nullptr);
        expectError(v1.toStdString(), "dl2 train convert");
        enableLegacyCheckpoints();
        const Checkpoint c = readCheckpoint(v1.toStdString());
        setLegacyArchiveDecoder(nullptr);
        QCOMPARE(c.parameters->size(), expectedParameters(c.spec).size());
        // Converted, it reads without the decoder and holds the same weights (of a value
        // network, only a trained one: an untrained one is left out and read back fresh).
        const std::string file = path("converted.dl2ckpt");
        writeFileAtomically(file, encodeCheckpoint(c.spec, c.info, NetworkArchive{*c.parameters, {}}, false));
        const Checkpoint d = readCheckpoint(file);
        QCOMPARE(d.valueOmitted, !c.info.valueTrained);
        for (const auto &[name, t] : *c.parameters)
            if (name.rfind("policy.", 0) == 0 || c.info.valueTrained)
                QCOMPARE(d.parameters->at(name).data, t.data);
            else
                QCOMPARE(freshValueNetwork(d).at(name).shape, t.shape);
    }

    void wrongDimensions()
    {
        // Metadata of a window-4 policy, weights of a window-6 one.
        const PolicySpec a = smallSpec(PolicyKind::Dl2);
        PolicySpec b = a;
        b.window = 6;
        const std::string file = path("dims.dl2ckpt");
        writeFileAtomically(file, encodeCheckpoint(a, TrainingInfo{}, NetworkArchive{initialParameters(b, 1), {}}, false));
        expectError(file, "mismatched dimensions");
    }

    void wrongHiddenSize()
    {
        const PolicySpec a = smallSpec(PolicyKind::Dl2Plus);
        PolicySpec b = a;
        b.hidden2 = 9;
        const std::string file = path("hidden.dl2ckpt");
        writeFileAtomically(file, encodeCheckpoint(a, TrainingInfo{}, NetworkArchive{initialParameters(b, 1), {}}, false));
        expectError(file, "mismatched dimensions");
    }

    void missingParameter()
    {
        const PolicySpec spec = smallSpec(PolicyKind::Dl2);
        ParameterSet p = initialParameters(spec, 1);
        p.erase("value.out.bias");
        const std::string file = path("missing-param.dl2ckpt");
        TrainingInfo info;
        info.valueTrained = true; // (an untrained value network is not stored at all)
        writeFileAtomically(file, encodeCheckpoint(spec, info, NetworkArchive{p, {}}, false));
        expectError(file, "value.out.bias");
    }

    void wrongKind()
    {
        const std::string file = path("kind.dl2ckpt");
        writeFileAtomically(file, validBytes(PolicyKind::Dl2));
        expectError(file, "wrong policy kind", PolicyKind::Dl2Plus);
    }

    void unsupportedVersion()
    {
        std::string bytes = validBytes();
        bytes[8] = 9;
        const std::string file = path("version.dl2ckpt");
        writeFileAtomically(file, bytes);
        expectError(file, "format version");
    }

    void registryLoadsAnyFile()
    {
        registerLearnedPolicies();
        const PolicySpec spec = smallSpec(PolicyKind::Dl2Plus);
        const std::string file = path("registry.dl2ckpt");
        writeCheckpoint(file, spec, TrainingInfo{}, initialParameters(spec, 5));
        SchedulerConfig config;
        config.checkpoint = file;
        auto policy = makeScheduler("dl2-plus", config);
        QCOMPARE(policy->name(), std::string("dl2-plus"));
        // The same file is not a dl2 policy.
        QVERIFY_THROWS_EXCEPTION(Error, makeScheduler("dl2", config));
        config.checkpoint = path("nope.dl2ckpt");
        QVERIFY_THROWS_EXCEPTION(Error, makeScheduler("dl2-plus", config));
    }

    // V(s) is reported only by a policy whose value network an actor-critic trained: an SL or
    // ES policy's value network is as initialised, and its estimate would be noise.
    void valueEstimatesOnlyFromATrainedValueNetwork_data()
    {
        QTest::addColumn<QString>("trainer");
        QTest::addColumn<bool>("recorded");   // TrainingInfo::valueTrained as written
        QTest::addColumn<long long>("step");
        QTest::addColumn<QString>("ablation");
        QTest::addColumn<bool>("expected");
        QTest::newRow("sl") << QStringLiteral("sl") << false << 250LL << QString() << false;
        QTest::newRow("es") << QStringLiteral("rl-es") << false << 20LL << QString() << false;
        QTest::newRow("es from an actor-critic") << QStringLiteral("rl-es") << true << 20LL << QString() << true;
        QTest::newRow("actor-critic") << QStringLiteral("rl") << true << 300LL << QString() << true;
        // Files from before the field was written: read from the trainer.
        QTest::newRow("older actor-critic") << QStringLiteral("older rl") << false << 300LL << QString() << true;
        // A new file says it itself: an actor-critic file that records no training is taken
        // at its word.
        QTest::newRow("actor-critic, not recorded") << QStringLiteral("rl") << false << 300LL << QString() << false;
        QTest::newRow("older actor-critic, step 0") << QStringLiteral("older rl") << false << 0LL << QString() << false;
        QTest::newRow("older no-value ablation") << QStringLiteral("older rl") << false << 300LL << QStringLiteral("no-value") << false;
    }
    void valueEstimatesOnlyFromATrainedValueNetwork()
    {
        QFETCH(QString, trainer);
        QFETCH(bool, recorded);
        QFETCH(long long, step);
        QFETCH(QString, ablation);
        QFETCH(bool, expected);
        const PolicySpec spec = smallSpec(PolicyKind::Dl2);
        TrainingInfo info;
        info.trainer = trainer.toStdString();
        info.valueTrained = recorded;
        info.step = step;
        if (!ablation.isEmpty())
            info.ablations = {ablation.toStdString()};
        const std::string name = "value-" + trainer.toStdString() + std::to_string(step) +
                                 ablation.toStdString() + (recorded ? "-t" : "-f") + ".dl2ckpt";
        const std::string file = path(name.c_str());
        if (trainer.startsWith(QStringLiteral("older "))) {
            info.trainer = trainer.mid(6).toStdString();
            writeFileAtomically(file, olderFile(spec, info, initialParameters(spec, 5), recorded));
        } else {
            writeCheckpoint(file, spec, info, initialParameters(spec, 5));
        }
        QCOMPARE(readCheckpoint(file).info.valueTrained, expected);
        registerLearnedPolicies();
        SchedulerConfig config;
        config.checkpoint = file;
        auto policy = makeScheduler("dl2", config);
        QCOMPARE(dynamic_cast<Dl2Policy &>(*policy).valueEstimates(), expected);
    }

    void untrainedValueNetworkIsLeftOut()
    {
        PolicySpec spec = smallSpec(PolicyKind::Dl2);
        spec.window = 20;
        const ParameterSet params = initialParameters(spec, 3);
        TrainingInfo info;
        info.trainer = "sl";
        info.seed = 11;
        const std::string untrained = path("untrained.dl2ckpt"), trained = path("trained.dl2ckpt");
        writeCheckpoint(untrained, spec, info, params);
        info.valueTrained = true;
        writeCheckpoint(trained, spec, info, params);
        QVERIFY(QFile(QString::fromStdString(untrained)).size() < QFile(QString::fromStdString(trained)).size());

        // Read, it holds the policy network alone; its value network is drawn when a trainer
        // asks for it (freshValueNetwork), the same each time.
        const Checkpoint a = readCheckpoint(untrained), b = readCheckpoint(untrained);
        QVERIFY(a.valueOmitted);
        QVERIFY(!readCheckpoint(trained).valueOmitted);
        const ParameterSet freshA = freshValueNetwork(a), freshB = freshValueNetwork(b);
        QCOMPARE(a.parameters->size() + freshA.size(), params.size());
        QVERIFY(freshValueNetwork(readCheckpoint(trained)).empty());
        bool valueDiffers = false;
        for (const auto &[name, t] : params) {
            if (name.rfind("policy.", 0) == 0) {
                QVERIFY(!freshA.contains(name));
                QCOMPARE(a.parameters->at(name).data, t.data);
                continue;
            }
            QVERIFY2(!a.parameters->contains(name), name.c_str());
            const ParameterTensor &got = freshA.at(name);
            QCOMPARE(got.shape, t.shape);
            QCOMPARE(got.data, freshB.at(name).data); // the same fresh network each read
            const double bound = 1.0 / std::sqrt(double(name.find("fc1") != std::string::npos ? spec.stateDim()
                                                          : name.find("fc2") != std::string::npos ? spec.hidden1
                                                                                                  : spec.hidden2));
            float largest = 0.0f;
            for (float v : got.data) {
                QVERIFY(std::isfinite(v));
                QVERIFY2(std::abs(v) <= bound, name.c_str());
                largest = std::max(largest, std::abs(v));
            }
            QVERIFY2(largest > 0.5 * bound, name.c_str()); // spread over the range, not zeros
            valueDiffers = valueDiffers || got.data != t.data;
        }
        QVERIFY(valueDiffers);
        // A trainer starting from the file (Learner) gets the policy it holds and that value
        // network; a policy network decides without one.
        const auto learnt = Learner(a, 1e-4, false).parameters();
        QCOMPARE(learnt->size(), params.size());
        for (const auto &[name, t] : *learnt)
            QCOMPARE(t.data, name.rfind("policy.", 0) == 0 ? params.at(name).data : freshA.at(name).data);
        std::vector<float> fromFile, fromLearner;
        EncodedState state;
        state.rows = spec.window;
        state.jobDim = spec.jobDim();
        state.jobs.assign(size_t(state.rows * state.jobDim), 0.25f);
        state.mask.assign(size_t(state.actionCount()), 1);
        PolicyNetwork(spec, a.parameters).logits(state, fromFile);
        PolicyNetwork(spec, learnt).logits(state, fromLearner);
        QCOMPARE(fromFile, fromLearner);
        // A file with optimizer state (a run to resume) keeps its value network as it was.
        info.valueTrained = false;
        const std::string resumable = path("resumable.dl2ckpt");
        writeFileAtomically(resumable, encodeCheckpoint(spec, info, NetworkArchive{params, "optimizer"}, true));
        const Checkpoint r = readCheckpoint(resumable);
        for (const auto &[name, t] : params)
            QCOMPARE(r.parameters->at(name).data, t.data);
        // A trained value network is never left out: a file that says otherwise is corrupt.
        writeFileAtomically(path("omitted-trained.dl2ckpt"),
                            rewritten(readFile(untrained), [](pb::CheckpointMeta &m, std::string &) {
                                m.set_value_trained(true);
                            }));
        expectError(path("omitted-trained.dl2ckpt"), "trained and omitted");
    }

    void compressedWeightsRecord()
    {
        const std::string bytes = validBytes();
        const std::string unknown = path("encoding.dl2ckpt"), garbage = path("inflate.dl2ckpt"),
                          plain = path("plain.dl2ckpt");
        writeFileAtomically(unknown, rewritten(bytes, [](pb::CheckpointMeta &m, std::string &) {
                                m.set_weights_encoding("lz4");
                            }));
        expectError(unknown, "unknown encoding 'lz4'");
        writeFileAtomically(garbage, rewritten(bytes, [](pb::CheckpointMeta &, std::string &w) {
                                for (size_t k = 4; k < w.size(); ++k)
                                    w[k] = char(0x5a);
                            }));
        expectError(garbage, "does not inflate");
        // A huge claimed size in qCompress's header is refused before anything is allocated.
        writeFileAtomically(garbage, rewritten(bytes, [](pb::CheckpointMeta &, std::string &w) {
                                w[0] = char(0x7f);
                            }));
        expectError(garbage, "uncompressed");
        // The plain record of older files still reads.
        writeFileAtomically(plain, rewritten(bytes, [](pb::CheckpointMeta &m, std::string &w) {
                                m.clear_weights_encoding();
                                w = inflated(w);
                            }));
        const Checkpoint fromPlain = readCheckpoint(plain);
        QCOMPARE(fromPlain.parameters->size() + freshValueNetwork(fromPlain).size(),
                 expectedParameters(smallSpec(PolicyKind::Dl2)).size());
    }

    void perTypeCountFeatures()
    {
        PolicySpec spec = smallSpec(PolicyKind::Dl2);
        spec.features.counts = CountFeatures::PerType;
        QCOMPARE(spec.jobDim(), 8 + 5 + 2 * 15 * 8);
        const std::string file = path("per-type.dl2ckpt");
        writeCheckpoint(file, spec, TrainingInfo{}, initialParameters(spec, 4));
        const Checkpoint c = readCheckpoint(file);
        QVERIFY(c.spec.features.counts == CountFeatures::PerType);
        QCOMPARE(c.spec.stateDim(), spec.stateDim());
        // Older files (no field) are scalar; an unknown value and dl2-plus are refused.
        const std::string older = path("counts-older.dl2ckpt"), unknown = path("counts-unknown.dl2ckpt"),
                          plus = path("counts-plus.dl2ckpt");
        writeFileAtomically(older, rewritten(validBytes(), [](pb::CheckpointMeta &m, std::string &) {
                                m.mutable_features()->clear_counts();
                            }));
        QVERIFY(readCheckpoint(older).spec.features.counts == CountFeatures::Scalar);
        writeFileAtomically(unknown, rewritten(readFile(file), [](pb::CheckpointMeta &m, std::string &) {
                                m.mutable_features()->set_counts("log");
                            }));
        expectError(unknown, "features.counts");
        writeFileAtomically(plus, rewritten(validBytes(PolicyKind::Dl2Plus), [](pb::CheckpointMeta &m, std::string &) {
                                m.mutable_features()->set_counts("per-type");
                            }));
        expectError(plus, "dl2's only");
    }

    void shippedPoliciesLoad_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<bool>("measured");
        QTest::addColumn<QString>("expected");
        QTest::newRow("dl2") << QStringLiteral("dl2") << QStringLiteral("dl2-reference") << true << QStringLiteral("dl2-reference-window60.dl2ckpt");
        QTest::newRow("dl2-fitted") << QStringLiteral("dl2") << QStringLiteral("dl2-reference") << false << QStringLiteral("dl2-reference-window60.dl2ckpt");
        QTest::newRow("dl2-contended") << QStringLiteral("dl2") << QStringLiteral("dl2-contended") << true << QStringLiteral("dl2-reference-window60.dl2ckpt");
        QTest::newRow("dl2-small") << QStringLiteral("dl2") << QStringLiteral("dl2-small") << true << QStringLiteral("dl2-reference.dl2ckpt");
        QTest::newRow("dl2-small-fitted") << QStringLiteral("dl2") << QStringLiteral("dl2-small") << false << QStringLiteral("dl2-reference.dl2ckpt");
        QTest::newRow("dl2-trace-file") << QStringLiteral("dl2") << QStringLiteral("philly-sample") << true << QStringLiteral("dl2-reference.dl2ckpt");
        QTest::newRow("dl2-plus") << QStringLiteral("dl2-plus") << QStringLiteral("dl2-reference") << true << QStringLiteral("dl2-plus-reference.dl2ckpt");
        QTest::newRow("dl2-plus-small") << QStringLiteral("dl2-plus") << QStringLiteral("dl2-small") << true << QStringLiteral("dl2-plus-reference.dl2ckpt");
        QTest::newRow("dl2-plus-fitted") << QStringLiteral("dl2-plus") << QStringLiteral("dl2-reference") << false << QStringLiteral("dl2-plus-reference-fitted.dl2ckpt");
        QTest::newRow("dl2-plus-contended") << QStringLiteral("dl2-plus") << QStringLiteral("dl2-contended") << true << QStringLiteral("dl2-plus-contended.dl2ckpt");
        QTest::newRow("dl2-plus-contended-fitted") << QStringLiteral("dl2-plus") << QStringLiteral("dl2-contended") << false << QStringLiteral("dl2-plus-contended-fitted.dl2ckpt");
    }
    void shippedPoliciesLoad()
    {
        QFETCH(QString, kind);
        QFETCH(QString, scenario);
        QFETCH(bool, measured);
        QFETCH(QString, expected);
        const PolicyKind k = policyKindFromString(kind.toStdString());
        const std::string file = shippedPolicyPath(k, scenario.toStdString(), measured);
        QCOMPARE(QString::fromStdString(file), QStringLiteral(":/dl2/policies/") + expected); // compiled in
        const Checkpoint c = readCheckpoint(file, k);
        QVERIFY(!c.hasOptimizer);
        QVERIFY(c.info.validationAvgJct > 0);
        // Of the shipped policies only this one went through the actor-critic (README).
        QCOMPARE(c.info.valueTrained, expected == QStringLiteral("dl2-plus-reference-fitted.dl2ckpt"));
        // dl2's policies were trained on dl2-reference; dl2-plus has one for dl2-contended.
        QCOMPARE(c.info.scenario, std::string(k == PolicyKind::Dl2Plus && scenario == QStringLiteral("dl2-contended")
                                                  ? "dl2-contended"
                                                  : "dl2-reference"));
    }

    void shippedPoliciesByName()
    {
        // Every catalogued policy is compiled in, loads, and is what its name says.
        QVERIFY(shippedPolicies().size() >= 6);
        for (const ShippedPolicy &p : shippedPolicies()) {
            const std::string file = resolveCheckpoint(p.name);
            QCOMPARE(QString::fromStdString(file),
                     QStringLiteral(":/dl2/policies/%1.dl2ckpt").arg(QString::fromStdString(p.name)));
            QCOMPARE(resolveCheckpoint(p.name + ".dl2ckpt"), file);
            QCOMPARE(int(readCheckpoint(file).spec.kind), int(p.kind));
            QVERIFY(p.speedModel == "rbf" || p.speedModel == "optimus");
        }
        // A path is a path; an unknown bare name is a path too, and fails as a missing file.
        QCOMPARE(resolveCheckpoint("/tmp/x.dl2ckpt"), std::string("/tmp/x.dl2ckpt"));
        registerLearnedPolicies();
        SchedulerConfig config;
        config.checkpoint = "dl2-plus-contended";
        QCOMPARE(makeScheduler("dl2-plus", config)->name(), std::string("dl2-plus"));
        QVERIFY_THROWS_EXCEPTION(Error, makeScheduler("dl2", config)); // a dl2-plus policy
        config.checkpoint = "no-such-policy";
        try {
            makeScheduler("dl2-plus", config);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("no-such-policy") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, shippedPolicyFile("no-such-policy"));
    }

    // The actor-critic from the paper's DRF warm-up is shipped by name only: a greedy
    // window-60 dl2 with the recipe it was trained by, its critic left out
    // (`dl2 policy strip`).
    void shippedActorCritic()
    {
        const std::string file = resolveCheckpoint("dl2-reference-actor-critic");
        const Checkpoint c = readCheckpoint(file, PolicyKind::Dl2);
        QVERIFY(!c.hasOptimizer);
        QCOMPARE(c.info.trainer, std::string("rl"));
        QVERIFY(!c.info.valueTrained && c.valueOmitted);
        QCOMPARE(int(c.spec.decode), int(Decode::Greedy));
        QCOMPARE(c.spec.window, 60);
        QCOMPARE(c.info.rowCredit, std::string("expected-stop"));
        QCOMPARE(c.info.countStepScale, 30.0);
        QCOMPARE(c.info.step, 4750LL);
        for (const ShippedPolicy &p : shippedPolicies())
            if (p.name == "dl2-reference-actor-critic")
                QVERIFY(p.usedFor.empty()); // never a default
        // The defaults stay the SL students.
        QVERIFY(shippedPolicyPath(PolicyKind::Dl2, "dl2-reference", true) != file);
    }

    void trailingBytes()
    {
        const std::string file = path("trailing.dl2ckpt");
        writeFileAtomically(file, validBytes() + "junk");
        expectError(file, "unexpected bytes");
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"

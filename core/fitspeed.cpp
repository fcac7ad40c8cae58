#include "fitspeed.h"

#include "error.h"
#include "profiles.pb.h"

#include <cstdio>
#include <memory>

namespace dl2 {

namespace {

std::string format(const char *fmt, double a)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, a);
    return buf;
}

std::string pad(const std::string &s, size_t width)
{
    return s.size() >= width ? s + ' ' : s + std::string(width - s.size(), ' ');
}

double chooseGlobalBatch(const std::vector<SpeedSample> &samples, const ModelProfile &profile,
                         const std::string &origin)
{
    int batch = 0;
    for (const SpeedSample &s : samples) {
        if (s.globalBatch <= 0)
            continue;
        if (batch > 0 && s.globalBatch != batch)
            throw Error::at(origin, s.line,
                            "measurements of '" + s.model + "' mix total batch sizes " +
                                std::to_string(batch) + " and " + std::to_string(s.globalBatch) +
                                "; the Optimus model assumes one global batch");
        batch = s.globalBatch;
    }
    if (batch > 0)
        return batch;
    if (const auto *optimus = dynamic_cast<const OptimusSpeedModel *>(profile.estimate.get()))
        return optimus->globalBatch();
    return 32.0; // the DL2 reference's default batch
}

} // namespace

SpeedFitResult fitProfiles(const std::vector<SpeedSample> &samples, const ProfileSet &base,
                           const std::string &origin, OptimusForm form)
{
    SpeedFitResult result;
    std::vector<ModelProfile> profiles = base.all();
    for (ModelProfile &p : profiles) {
        SpeedFitRow row;
        row.model = p.name;
        std::vector<SpeedSample> mine;
        for (const SpeedSample &s : samples)
            if (s.model == p.name)
                mine.push_back(s);
        if (mine.empty()) {
            if (const auto *optimus = dynamic_cast<const OptimusSpeedModel *>(p.estimate.get())) {
                const pb::OptimusCoefficients c = optimus->toProto();
                row.points = c.fit_points();
                row.dropped = c.dropped_points();
                row.relRmse = c.fit_rel_rmse();
                row.maxRelError = c.fit_max_rel_error();
                row.globalBatch = c.global_batch();
                row.theta = optimus->theta();
            }
            result.rows.push_back(std::move(row));
            continue;
        }
        const pb::OptimusCoefficients c =
            fitOptimus(mine, form, chooseGlobalBatch(mine, p, origin));
        auto model = std::make_shared<const OptimusSpeedModel>(c);
        p.speed = model;
        p.estimate = model;
        p.fitRmse = c.fit_rel_rmse();
        row.fitted = true;
        row.points = c.fit_points();
        row.dropped = c.dropped_points();
        row.relRmse = c.fit_rel_rmse();
        row.maxRelError = c.fit_max_rel_error();
        row.globalBatch = c.global_batch();
        row.theta = model->theta();
        result.rows.push_back(std::move(row));
    }
    for (const SpeedSample &s : samples)
        if (!base.indexOf(s.model)) {
            bool known = false;
            for (const std::string &m : result.ignoredModels)
                known = known || m == s.model;
            if (!known)
                result.ignoredModels.push_back(s.model);
        }
    result.profiles = ProfileSet(std::move(profiles));
    result.profiles.setSource(origin);
    return result;
}

std::string SpeedFitResult::report() const
{
    std::string out = pad("model", 25) + pad("points", 8) + pad("dropped", 8) +
                      pad("rel_rmse", 10) + pad("max_rel", 10) + "M     theta\n";
    for (const SpeedFitRow &r : rows) {
        out += pad(r.model, 25) + pad(std::to_string(r.points), 8) +
               pad(std::to_string(r.dropped), 8) + pad(format("%.4f", r.relRmse), 10) +
               pad(format("%.4f", r.maxRelError), 10) + pad(format("%g", r.globalBatch), 6);
        for (size_t j = 0; j < r.theta.size(); ++j) {
            if (j > 0)
                out += ' ';
            out += format("%.6g", r.theta[j]);
        }
        if (!r.fitted)
            out += "  (no measurements: base coefficients kept)";
        out += '\n';
    }
    for (const std::string &m : ignoredModels)
        out += "ignored: measurements of '" + m + "' (no such profile)\n";
    return out;
}

std::string SpeedFitResult::toText(const std::string &command) const
{
    std::string out;
    out += "# proto-file: core/proto/profiles.proto\n";
    out += "# proto-message: dl2.pb.ProfileSet\n";
    out += "#\n";
    out +=
        "# Model profiles with Optimus speed coefficients, fitted by non-negative least squares\n";
    out += "# (minimising the relative speed error) to measured speeds. Produced by:\n";
    out += "#   " + command + "\n";
    out += "#\n";
    const std::string table = report();
    size_t start = 0;
    while (start < table.size()) {
        const size_t end = table.find('\n', start);
        out += "# " + table.substr(start, end - start) + "\n";
        start = end == std::string::npos ? table.size() : end + 1;
    }
    out += "\n";
    out += profiles.toText();
    return out;
}

} // namespace dl2

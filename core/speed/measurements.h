#pragma once
// Importers for measured training speeds (SpeedSample: model, ps, workers, summed speed).
//  - DL2 format: the authors' Python-tuple-per-line file
//      ('resnet-50', 'dist_sync', 32, 1, 2, [7.702, 7.702], [1.942], [0.436, 0.423])
//    (model, sync mode, total batch, ps, workers, per-worker speeds, PS cpu, worker cpu);
//    speed = sum of the per-worker speeds; every line is kept, failed all-zero ones included.
//  - CSV: header with columns model,ps,workers,speed (any order; optional global_batch);
//    '#' comment lines may precede the header and follow it.
// Every error is a dl2::Error naming the file and the line.
// The built-in table (resources/speeds/, derived from the DL2 file by `dl2 speeds derive`)
// is compiled into every binary.

#include "speed/speedmodel.h"

#include <string>
#include <vector>

namespace dl2 {

std::vector<SpeedSample> readDl2Measurements(const std::string &path);
std::vector<SpeedSample> parseDl2Measurements(const std::string &text, const std::string &origin);

std::vector<SpeedSample> readCsvMeasurements(const std::string &path);
std::vector<SpeedSample> parseCsvMeasurements(const std::string &text, const std::string &origin);

// Picks the format by extension (.csv) or content (a line starting with '(' is DL2).
std::vector<SpeedSample> loadMeasurements(const std::string &path);

// CSV model,ps,workers,speed of `samples` in their order, each speed in the shortest form
// that reads back as the same double (so an RBF over the CSV equals one over the source).
// `comment` lines (without '#') go first, as '#' comment lines.
std::string measurementsToCsv(const std::vector<SpeedSample> &samples,
                              const std::vector<std::string> &comment = {});

// The measured speeds built in (resources/speeds/dl2-testbed-speeds.csv, Qt resource):
// the aggregate speed of every configuration the DL2 authors measured, failed ones included.
inline constexpr const char *kBuiltinSpeedTable = ":/dl2/speeds/dl2-testbed-speeds.csv";
const std::vector<SpeedSample> &builtinMeasurements();

// Model names in order of first appearance (the DL2 file holds the 8 reference models).
std::vector<std::string> measuredModels(const std::vector<SpeedSample> &samples);
// The samples of one model, in file order.
std::vector<SpeedSample> samplesOf(const std::vector<SpeedSample> &samples,
                                   const std::string &model);

} // namespace dl2

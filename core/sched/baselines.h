#pragma once
// Factories and registration of the baseline schedulers (docs/model.md section 4 and issue 6).
// The reference heuristics reproduce the authors' simulation code, quirks included; the
// "-time", "-fixed", "-paper" and "-est" variants are the corrected / textbook versions.

#include <memory>
#include <vector>

namespace dl2 {

class Scheduler;
class SlotContext;

std::unique_ptr<Scheduler> makeDrf();
void registerDrf();

std::unique_ptr<Scheduler> makeFifo();
std::unique_ptr<Scheduler> makeSrtf();         // reference: remaining fraction of epochs
std::unique_ptr<Scheduler> makeSrtfTime();     // remaining time at the full bundle allocation
std::unique_ptr<Scheduler> makeTetris();       // reference: remaining-work term favours long jobs
std::unique_ptr<Scheduler> makeTetrisFixed();  // remaining-work term favours short jobs
std::unique_ptr<Scheduler> makeOptimus();      // reference: true speed, no normalisation
std::unique_ptr<Scheduler> makeOptimusPaper(); // fitted speed, gain per dominant resource
std::unique_ptr<Scheduler> makeBestConfig();   // best (p, w) by the true speed, SRTF order
std::unique_ptr<Scheduler> makeBestConfigEst(); // the same on the fitted estimate
std::unique_ptr<Scheduler> makeObserved();     // replays an imported trace's history

// Registers every other baseline (fifo, srtf, tetris, optimus, their corrected variants,
// best-config). registerBaselines() calls registerDrf() itself.
void registerReferenceBaselines();

namespace detail {
// The reference FIFO/SRTF loop: each job of `order` (indices into context.jobs()) in turn
// gets bundles until it reaches a cap; the slot ends at the first bundle that does not fit.
void serveBundlesInOrder(SlotContext &context, const std::vector<int> &order);
} // namespace detail

} // namespace dl2

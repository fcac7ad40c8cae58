#pragma once
// Keeps a table view's row height and column widths fitted to its font. A table sizes its
// columns to their contents once per model reset; when the font grows later (presentation
// mode's x1.5, an export's x1.3) those widths stay those of the normal font and narrow
// columns (the job id beside its colour swatch) show "…" or nothing. fitTableToFont() makes
// the view re-fit on every font change, as it was fitted on its last reset.

class QTableView;

namespace dl2console {

// Row height for the view's font, then every visible column resized to its contents.
void refitTable(QTableView *view);
// The row height for the font now, refitTable() on every later font change of the view (an
// event filter it owns).
void fitTableToFont(QTableView *view);

} // namespace dl2console

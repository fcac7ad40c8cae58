#pragma once
// The real main window, shown offscreen and loaded with dl2-small under DRF at slot 0: the
// starting point of the window-level GUI tests.

#include "consolesession.h"
#include "mainwindow.h"
#include "settings.h"

#include <QTest>
#include <memory>

namespace dl2console::test {

// Creates `window` over `settings`; on failure the calling test has already failed
// (check QTest::currentTestFailed()).
inline void openConsole(std::unique_ptr<MainWindow> &window, Settings *settings, QSize size)
{
    window = std::make_unique<MainWindow>(settings, false);
    window->setInteractiveErrors(false);
    window->resize(size);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    SessionSetup setup;
    setup.scenario = QStringLiteral("dl2-small");
    setup.policy = QStringLiteral("drf");
    window->load(setup);
    QVERIFY(window->session()->waitForSlot(0));
}

} // namespace dl2console::test

# CPack: a Debian package of the console (and whatever else installs: CLI, agent).
# Runtime dependencies are the Debian 12 (bookworm) package names of the shared libraries
# our binaries link (checked with dpkg -S on the linked .so files).
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "dl2-console")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "DL2 Console developers")
set(CPACK_PACKAGE_CONTACT "DL2 Console developers <dl2console@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Operations console and learned scheduler for deep-learning clusters")
set(CPACK_PACKAGE_DESCRIPTION
    "Replays the DL2 cluster-scheduling simulation slot by slot (cluster occupancy, jobs, \
utilisation, reward), compares scheduling policies over many traces, and provides the dl2 \
command-line tool.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/dl2console/dl2console")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(_dl2_deb_depends
  "libqt6core6 (>= 6.4)"
  "libqt6gui6 (>= 6.4)"
  "libqt6widgets6 (>= 6.4)"
  "libqt6printsupport6 (>= 6.4)"
  "libqt6network6 (>= 6.4)"
  "libqt6sql6-sqlite (>= 6.4)"
  "qt6-qpa-plugins"
  "libqcustomplot2.1-qt6"
  "libprotobuf32"
  "libarchive13"
  "libavcodec59" "libavformat59" "libswscale6") # replay export (WebM, MP4, GIF, APNG)
if(DL2_BUILD_LEARNING)
  list(APPEND _dl2_deb_depends "libtorch1.13")
endif()
if(DL2_BUILD_CONNECTORS)
  # dl2-agent and the dl2 operate/audit commands: gRPC and Qt SQL; kubeconfig files: yaml-cpp.
  list(APPEND _dl2_deb_depends "libgrpc++1.51" "libqt6sql6 (>= 6.4)" "libyaml-cpp0.7")
endif()
# dpkg-shlibdeps adds every shared library the binaries actually link, so a dependency we
# forgot to list above still ends up in the package; the list keeps the plugins (platform,
# SQLite driver) that no binary links directly.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
list(JOIN _dl2_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# SVG icon engine plugin; OpenBLAS behind libtorch's libblas.so.3 (the reference BLAS
# otherwise: dl2-train 2-3 x slower).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libqt6svg6")
if(DL2_BUILD_LEARNING)
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", libopenblas0-openmp")
endif()
include(CPack)

# What `cmake --install` puts where, and the Debian package CPack makes of it:
#   bin/warpscope
#   libexec/warpscope/warpscope-gpu-run        runs student kernels on the GPU (with NVRTC)
#   share/warpscope/{lessons,kernels,assets}   found next to the binary (app/paths.h),
#                                              so the prefix can be moved
#   share/applications/warpscope.desktop, share/icons/hicolor/scalable/apps/warpscope.svg
include(GNUInstallDirs)

install(TARGETS warpscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Student kernels on the GPU run in a process of their own (kernels/user/user_gpu_runner.h).
if(TARGET warpscope-gpu-run)
  install(TARGETS warpscope-gpu-run RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/warpscope)
endif()
set(WS_SHARE ${CMAKE_INSTALL_DATADIR}/warpscope)
# Every family header: the source view shows the kernels' code.
file(GLOB WS_FAMILY_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/families/*.cuh)
install(FILES ${WS_FAMILY_HEADERS} DESTINATION ${WS_SHARE}/kernels/families)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lessons/ DESTINATION ${WS_SHARE}/lessons
        FILES_MATCHING PATTERN "*.md")
# Student kernels are compiled at run time against the dialect headers (kernels/dialect/simt.h and
# what it includes); the puzzles go with them (their solutions too: CI checks them).
# Plain CUDA runs on the emulator through kernels/cuda_emu.h. Every sim/ header goes: the
# emulator's headers include one another (run_control.h needs progress.h).
install(FILES
  ${PROJECT_SOURCE_DIR}/kernels/dialect/simt.h ${PROJECT_SOURCE_DIR}/kernels/dialect/simt_emu.h
  ${PROJECT_SOURCE_DIR}/kernels/dialect/simt_cuda.h ${PROJECT_SOURCE_DIR}/kernels/dialect/simt_traced.inc
  ${PROJECT_SOURCE_DIR}/kernels/dialect/registry.h
  DESTINATION ${WS_SHARE}/include/kernels/dialect)
install(FILES ${PROJECT_SOURCE_DIR}/kernels/catalogue/catalogue.h
  DESTINATION ${WS_SHARE}/include/kernels/catalogue)
install(FILES ${PROJECT_SOURCE_DIR}/kernels/user/cuda_emu.h
  DESTINATION ${WS_SHARE}/include/kernels/user)
file(GLOB WS_SIM_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/*.h)
install(FILES ${WS_SIM_HEADERS} DESTINATION ${WS_SHARE}/include/sim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/puzzles/ DESTINATION ${WS_SHARE}/puzzles)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${WS_SHARE}/assets
        PATTERN "*.desktop" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/assets/warpscope.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/warpscope.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warpscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "warpscope")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU performance lessons: warps, shared-memory banks, global sectors and divergence")
set(CPACK_PACKAGE_CONTACT "warpscope maintainers <maintainers@warpscope.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # warpscope_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION education)
# Library dependencies from the binary (dpkg-shlibdeps). A CUDA build links the toolkit's
# libraries from /usr/local/cuda, which no Debian package owns: there the driver and the
# toolkit's runtime are the lab's to install, and the package lists the rest by hand.
if(WS_HAVE_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libglfw3, libgl1, libmd4c0, libcairo2, libfontconfig1, libseccomp2, libboost-context1.74.0 | libboost-context-dev")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
# libclang is loaded when a student's plain-CUDA kernel runs on the emulator (dlopen), and
# the system compiler builds it: recommended, so the package installs without them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core, libclang1-14, g++")
include(CPack)

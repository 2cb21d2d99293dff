# File: package.cmake (included by the top-level CMakeLists.txt, after every install rule)
# The Debian package: `cpack -G DEB` in a configured build tree writes icsbridge_VERSION_ARCH.deb.
#
# What only the package installs is in the component `deb` (EXCLUDE_FROM_ALL): absolute paths under /etc
# and /lib, which a `cmake --install --prefix DIR` must never write to. What only `cmake --install` installs
# (the unit that runs /usr/local/bin/icsbridge) is in the component `local`. CPack packs every other
# install rule plus `deb`, as one package.
set(deb_src "${CMAKE_SOURCE_DIR}/deploy/debian")
set(deb_gen "${CMAKE_BINARY_DIR}/deb")
set_property(
    DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/deploy/icsbridge.service"
                                                      "${CMAKE_SOURCE_DIR}/config/example.toml"
)

# icsbridge_derive(IN OUT FROM TO [FROM TO]...): OUT is IN with each FROM replaced by its TO, in order; a FROM
# that is no longer in the text is a configure error, so editing the source cannot silently break the copy.
# (CMake lists: FROM and TO must not contain ';'.)
function(icsbridge_derive in out)
    file(READ "${in}" text)
    set(pairs ${ARGN})
    list(LENGTH pairs n)
    math(EXPR odd "${n} % 2")
    if(odd)
        message(FATAL_ERROR "icsbridge_derive: FROM and TO come in pairs (is there a ';' in one?)")
    endif()
    while(pairs)
        list(POP_FRONT pairs from to)
        string(FIND "${text}" "${from}" at)
        if(at EQUAL -1)
            message(FATAL_ERROR "${in}: '${from}' not found; update deploy/debian/package.cmake")
        endif()
        string(REPLACE "${from}" "${to}" text "${text}")
    endwhile()
    # Written only when it changes, so the package's inputs keep their time stamps.
    set(old "")
    if(EXISTS "${out}")
        file(READ "${out}" old)
    endif()
    if(NOT old STREQUAL text)
        file(WRITE "${out}" "${text}")
    endif()
endfunction()

# The unit, hardened as in the repository, with the package's paths and install steps.
icsbridge_derive(
    "${CMAKE_SOURCE_DIR}/deploy/icsbridge.service" "${deb_gen}/icsbridge.service"
    "# Install: cmake --install build (puts this file in /usr/local/lib/systemd/system or under your prefix),
# then create /etc/icsbridge/config.toml and /etc/icsbridge/secrets.env, both root-owned mode 0600, and
#   systemctl daemon-reload && systemctl enable --now icsbridge"
    "# Installed by the Debian package icsbridge, with /etc/icsbridge/config.toml and secrets.env (root, 0600):
# edit both, then   systemctl enable --now icsbridge"
    /usr/local/ /usr/
)
# The example, with its snapshots in the unit's state directory: the one place the service may write.
icsbridge_derive(
    "${CMAKE_SOURCE_DIR}/config/example.toml" "${deb_gen}/config.toml"
    "dir = \"var/icsbridge\"                 # last-good snapshots, created if missing"
    "dir = \"/var/lib/icsbridge\"            # the unit's StateDirectory: last-good snapshots, created if missing"
)

add_custom_command(
    OUTPUT "${deb_gen}/changelog.gz"
    COMMAND gzip -9nc "${deb_src}/changelog" > "${deb_gen}/changelog.gz"
    DEPENDS "${deb_src}/changelog"
    VERBATIM
)
add_custom_target(icsbridge-deb-files ALL DEPENDS "${deb_gen}/changelog.gz")

set(secret_mode PERMISSIONS OWNER_READ OWNER_WRITE)
install(FILES "${deb_gen}/icsbridge.service" DESTINATION /lib/systemd/system COMPONENT deb EXCLUDE_FROM_ALL)
install(FILES "${deb_gen}/config.toml" "${deb_src}/secrets.env" DESTINATION /etc/icsbridge ${secret_mode} COMPONENT deb EXCLUDE_FROM_ALL)
install(
    FILES "${deb_src}/copyright" "${deb_gen}/changelog.gz"
    DESTINATION "${CMAKE_INSTALL_DOCDIR}"
    COMPONENT deb EXCLUDE_FROM_ALL
)
install(
    FILES "${deb_src}/lintian-overrides"
    DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides"
    RENAME icsbridge
    COMPONENT deb EXCLUDE_FROM_ALL
)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME icsbridge)
set(CPACK_PACKAGE_VENDOR "icsbridge developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "calendar subscriptions from an events service and a job board")
# The extended description: lines of at most 80 characters (lintian: extended-description-line-too-long).
set(CPACK_PACKAGE_DESCRIPTION
    "icsbridge fetches an events API (OAuth bearer token) and a job board (api_key)
and serves each saved feed as an iCalendar (.ics) URL that Google Calendar,
Apple Calendar, Outlook and Thunderbird can subscribe to. A failing upstream
never empties a calendar: the last good snapshot of every feed is kept on disk
and served until the upstream answers again. One binary, one TOML file, a
hardened systemd unit."
)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "icsbridge developers <dev@icsbridge.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared libraries are found by dpkg-shlibdeps; these are data the binary reads at run time: the system
# zoneinfo (libical's time zones) and the system trust store (TLS to the upstreams). libpq5 is opened by
# name in cluster mode (src/util/libpq_loader.cpp), so dpkg-shlibdeps cannot see it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata, ca-certificates, libpq5")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${deb_src}/postinst;${deb_src}/prerm;${deb_src}/postrm;${deb_src}/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Debug info stays in the build tree; the package gets a stripped binary (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified deb)
include(CPack)

# `cmake --build build --target deb`: builds only what the package holds (the built-in `package` target
# would build every benchmark too), then runs cpack. The .deb lands in the build directory.
add_custom_target(
    deb
    COMMAND cpack -G DEB
    WORKING_DIRECTORY "${CMAKE_BINARY_DIR}"
    COMMENT "cpack -G DEB"
    VERBATIM
)
add_dependencies(deb icsbridge icsbridge-man icsbridge-deb-files)

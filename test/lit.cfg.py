# SPDX-License-Identifier: Apache-2.0
# lit configuration for hopt's FileCheck tests. Run through Meson
# (`meson test -C build lit`) or directly:
#   python3 /usr/lib/llvm-16/build/utils/lit/lit.py -sv build/test
# The paths come from build/test/lit.site.cfg.py, which Meson configures.

import os

import lit.formats

config.name = 'hopt'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.hlo']
config.excludes = ['Inputs', 'plugins']
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

if not hasattr(config, 'hopt_path'):
    lit_config.fatal('run lit on the build directory (build/test), which has '
                     'lit.site.cfg.py with the paths of hopt and the test plugins')
config.test_exec_root = getattr(config, 'test_exec_root', config.test_source_root)

# Custom substitutions come before lit's own (%s, %t...), so %testplugins is
# replaced whole before %t could match its prefix.
config.substitutions.append(('%hopt', config.hopt_path))
config.substitutions.append(('%hlo_run', config.hlo_run_path))
config.substitutions.append(('%hlo_gen', config.hlo_gen_path))
# %loadall: all four plugins, as -passes=neuron needs them. Before %plugins,
# which is its prefix.
config.substitutions.append(('%loadall', ' '.join(
    '-load=' + os.path.join(config.plugin_dir, 'libneuron_%s.so' % family)
    for family in ('markers', 'collectives', 'decompose', 'partition'))))
config.substitutions.append(('%testplugins', config.test_plugin_dir))
config.substitutions.append(('%plugins', config.plugin_dir))
config.substitutions.append(('%plugindir_from_bindir', config.plugin_dir_from_bindir))
config.substitutions.append(('%corelib', config.hopt_core_lib))
config.substitutions.append(('%protolib', config.hopt_proto_lib))
config.substitutions.append(('%toollibs', config.hopt_tool_libs))
# The Meson build directory the tests run from (for `meson install`).
config.substitutions.append(('%builddir', os.path.dirname(config.test_exec_root)))
# valgrind cannot run a sanitized binary (both own the address space), so
# tests that run hopt under valgrind are UNSUPPORTED, and counted as such in
# lit's summary, in scripts/sanitize.sh's build; the default build runs them.
if config.sanitizers == 'none':
    config.available_features.add('valgrind')
    # An address-space limit (ulimit -v) checks a memory bound only here:
    # sanitizers reserve terabytes of address space up front.
    config.available_features.add('address-space-limit')
    # AddressSanitizer owns SIGSEGV in the sanitized build: tests of hopt's
    # own crash report need the plain one (and show as UNSUPPORTED there).
    config.available_features.add('plain-signals')
config.substitutions.append(('%inputs', os.path.join(config.test_source_root, 'Inputs')))
# Creating device nodes (mknod) needs root; tests that do are UNSUPPORTED,
# and counted as such, for everyone else.
if hasattr(os, 'geteuid') and os.geteuid() == 0:
    config.available_features.add('root')

# FileCheck and not from LLVM 16, whatever else is on PATH.
config.environment['PATH'] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get('PATH', os.environ.get('PATH', ''))])
# Tests that want a plugin search path set it themselves. `meson test` puts
# the test plugin directory on LD_LIBRARY_PATH (the lit test depends on the
# plugins), which would let dlopen() find a bare plugin name that hopt's own
# search did not resolve; hopt and the plugins find libhopt_core through
# their rpath, so the variable is not needed.
config.environment.pop('LD_LIBRARY_PATH', None)
config.environment.pop('HOPT_PLUGIN_PATH', None)
config.environment.pop('HOPT_REPORT_LOAD_TIME', None)

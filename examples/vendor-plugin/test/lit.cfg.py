# SPDX-License-Identifier: Apache-2.0
# lit configuration of the vendor plugin's tests: the installed hopt and
# LLVM's FileCheck (paths from lit.site.cfg.py, which meson.build writes).
import os

import lit.formats

config.name = 'vendor-scalar-reduce'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.hlo']
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.vendor_test_exec_root
config.substitutions.append(('%hopt', config.hopt))
config.substitutions.append(('%vendor_buggy_plugin', config.vendor_buggy_plugin))
config.substitutions.append(('%vendor_plugin', config.vendor_plugin))
# FileCheck and not: LLVM's, by directory.
config.environment['PATH'] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get('PATH', '/usr/bin:/bin')])

// SPDX-License-Identifier: Apache-2.0
// hopt_test_no_entry: a valid shared object that is not a hopt plugin (it
// exports a symbol, but not hoptGetPluginInfo).

#include "hopt/pass_manager/plugin_api.h"

extern "C" HOPT_PLUGIN_EXPORT int hopt_test_no_entry_marker() { return 42; }

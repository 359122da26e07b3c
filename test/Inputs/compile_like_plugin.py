# SPDX-License-Identifier: Apache-2.0

"""Compiles one source file (-fsyntax-only) with the flags our plugins are
compiled with, taken from BUILD/compile_commands.json (the command of
plugins/collectives/plugin.cc, or of the unity file holding it when the
build uses unity files, as the sanitizer build does): what a plugin's
source sees of the SDK.
Extra arguments (-DNAME) are passed on. Exit status: the compiler's.

Usage: compile_like_plugin.py BUILD SOURCE [-DNAME...]
"""

import json
import os
import shlex
import subprocess
import sys


def plugin_flags(build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    unity = os.path.join("libneuron_collectives.so.p", "neuron_collectives-unity")
    for entry in commands:
        name = entry["file"]
        if name.endswith(os.path.join("plugins", "collectives", "plugin.cc")) or unity in name:
            args = entry.get("arguments") or shlex.split(entry["command"])
            return entry["directory"], args
    sys.exit("no compile command of the collectives plugin in " + build)


def main():
    build, source, extra = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    directory, args = plugin_flags(build)
    if args[0] == "ccache":
        args = args[1:]
    compiler, flags, skip = [args[0]], [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in ("-o", "-MF", "-MQ", "-c"):
            skip = True  # drop the flag and its value
        elif arg not in ("-MD", "-fdiagnostics-color=always") and not arg.endswith((".cc", ".cpp")):
            flags.append(arg)
    command = compiler + flags + ["-fsyntax-only", "-fdiagnostics-color=never"] + extra + [source]
    sys.exit(subprocess.call(command, cwd=directory))


if __name__ == "__main__":
    main()

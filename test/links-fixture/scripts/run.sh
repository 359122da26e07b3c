#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0

echo "$#" "core/gone.h"  # a comment naming core/thing.h and test/gone.hlo

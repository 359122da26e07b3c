#!/usr/bin/env bash
echo "$#" "core/gone.h"  # a comment naming core/thing.h and test/gone.hlo

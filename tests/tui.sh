#!/bin/sh
echo "being written"; exit 77

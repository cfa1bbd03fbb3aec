#!/usr/bin/env bash
# Evidence that nn/tf_checkpoint's writer (the tests' TensorFlow checkpoints) writes what TensorFlow
# writes: every checkpoint in a folder (every *.index beside its .data-00000-of-00001) is read and
# rewritten by build/tests/tf_bundle_rewrite, which says SAME or DIFFER for its index and data files.
# No TensorFlow is needed: the checkpoints are real ones TensorFlow 1.x's tf.train.Saver wrote.
#
#   tests/goldens/check_tf_bundle_writer.sh FOLDER [BUILD_DIR]
#
# Checked 2026-12-07 on a checkout of github.com/MattChubb/tensorflow-houseprices (commit 860ba35,
# model.ckpt: 34 tensors, model_longtrain.ckpt: 32 tensors): both SAME, index and data. Those files
# carry no licence, so they are not copied into this repository.
set -euo pipefail
folder=${1:?usage: check_tf_bundle_writer.sh FOLDER_WITH_TF_CHECKPOINTS [BUILD_DIR]}
build=${2:-build}
tool="$build/tests/tf_bundle_rewrite"
[[ -x $tool ]] || { echo "check_tf_bundle_writer.sh: $tool is missing: cmake --build $build --target tf_bundle_rewrite" >&2; exit 2; }
prefixes=()
for index in "$folder"/*.index; do
  [[ -e $index ]] || { echo "check_tf_bundle_writer.sh: no *.index in $folder" >&2; exit 2; }
  prefixes+=("${index%.index}")
done
"$tool" "${prefixes[@]}"

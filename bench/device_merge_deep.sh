# The merged-group tiles of 64-deep steps `default` took from bench/results/odd-channels/, on the device with
# carry [".whl"]:  bash bench/device_merge_deep.sh    (name the machine nvidia-h100-x1; BUDGET_S, default 560)
# bench/device_verify_resume.sh on the instances of the rules RULES names (default all three) in bf16 and fp16:
# float64 verification, then every committed sweep resumed.
RULES=${RULES:-"'igemm-fwd-merge-deep', 'igemm-bwd-data-merge-deep', 'igemm-bwd-weight-merge-deep'"}
bash bench/device_verify_resume.sh "rule in [$RULES]" bf16 fp16

# Nsight Compute on a few slow kernels (bench/ncu_kernel.py launches one), on the device with carry [".whl"]:
#   bash bench/device_ncu.sh        -> $OUT/ncu-<kernel>.txt (the sections below, one launch each)
# Which kernel stalls where, for the kernel families far from the roofline (bench/results/ncu/README.md).
. bench/device_setup.sh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then echo "no ncu on this machine"; ls /usr/local/ /opt 2>&1 | head; exit 1; fi
echo "ncu: $NCU ($($NCU --version | tail -1))"
while read kernel problem; do
  [ -z "$kernel" ] && continue
  # warm Triton's cache first (outside the profiler), then profile the third launch
  python3 -m bench.ncu_kernel --kernel $kernel --problem $problem --launches 1 || continue
  timeout 150 $NCU --launch-skip 2 --launch-count 1 --kernel-name kernel --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --print-summary none \
    python3 -m bench.ncu_kernel --kernel $kernel --problem $problem --launches 3 > $OUT/ncu-$kernel.txt 2>&1
  echo "$kernel rc=$?"
  grep -E "Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|ERR" \
    $OUT/ncu-$kernel.txt | head -8
done <<'LIST'
fwd_bf16_depthwise_t4x8c16_f7_m2_cpg2_w2_v8 fwd_bf16_n128_g8_c2_k2_hi128_wi128_y7_x7_s1x1_p3x3_d1x1
bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v8_mg1 bwd_data_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1
fwd_bf16_igemm_m64n64k64_w4_s3_tma_g8_v1_mg2_px8x8 fwd_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1
fwd_bf16_depthwise_t8x8c128_f7_m1_sr1_w4_v8 fwd_bf16_n8_g512_c1_k1_hi224_wi224_y7_x7_s1x1_p3x3_d1x1
bwd_weight_bf16_depthwise_t4x8c64_f7_m1_sr1_w2_v8_sk16 bwd_weight_bf16_n8_g512_c1_k1_hi224_wi224_y7_x7_s1x1_p3x3_d1x1
LIST

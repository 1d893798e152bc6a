# Nsight Compute on a few slow kernels (bench/ncu_kernel.py launches one), on the device with carry [".whl"]:
#   bash bench/device_ncu.sh [LIST]   -> $OUT/ncu-<kernel>.txt (the sections below, one launch each)
# LIST: a file of "KERNEL PROBLEM_KEY" lines, default bench/ncu_lists/session28.txt (a kernel named twice: the second
# report is ncu-<kernel>-2.txt, the third -3, ...); KERNEL `cudnn` profiles every kernel of the vendor path's call.
# Which kernel stalls where, for the kernel families far from the roofline (bench/results/ncu/README.md).
. bench/device_setup.sh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then echo "no ncu on this machine"; ls /usr/local/ /opt 2>&1 | head; exit 1; fi
echo "ncu: $NCU ($($NCU --version | tail -1))"
list=${1:-bench/ncu_lists/session28.txt}
[ -f "$list" ] || { echo "no list file $list"; exit 1; }
seen=""
while read kernel problem; do
  [ -z "$kernel" ] && continue
  report=$OUT/ncu-$kernel.txt
  times=$(echo "$seen" | tr ' ' '\n' | grep -cxF "$kernel")
  [ "$times" -gt 0 ] && report=$OUT/ncu-$kernel-$((times + 1)).txt
  seen="$seen $kernel"
  # warm Triton's cache first (outside the profiler), then profile the third launch: bench/ncu_kernel.py brackets it
  # with cudaProfilerStart / Stop
  python3 -m bench.ncu_kernel --kernel $kernel --problem $problem --launches 1 < /dev/null || continue
  timeout 150 $NCU --profile-from-start off --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --print-summary none \
    python3 -m bench.ncu_kernel --kernel $kernel --problem $problem --launches 3 > $report 2>&1 < /dev/null
  rc=$?
  echo "problem: $problem" >> $report
  echo "$kernel rc=$rc"
  grep -E "Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|ERR" \
    $report | head -8
done < "$list"

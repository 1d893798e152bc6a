# Why the igemm last-arrival twins read partial sums on the H100 (session 39, 2026-11-27), on the device with carry
# [".whl"] (name nvidia-h100-x1):  bash bench/device_last_arrival_probe.sh
# bench/last_arrival_probe.py, a fresh workspace each run, on two pairs the A/B found wrong (one always, one at times):
# the template as it is (which splits each wrong element sums), then variants of its epilogue (--edit). It ran
# against the template before the fix (git show ee7db559:generator/templates/_common.j2), which read, zeroed and
# stored each tap in a row. The fixed template has none of the text the edits replace (the probe says so), and
# "as rendered" is then the fixed kernel.
. bench/device_setup.sh
P=bwd_weight_bf16_ K=bwd_weight_bf16_igemm_
PAIRS="${P}n32_g64_c32_k32_hi7_wi7_y3_x3_s1x1_p1x1_d1x1:${K}m32n64k32_w4_s3_ms_g1_v1_mg1_sk8la
  ${P}n8_g2_c64_k64_hi112_wi112_y3_x3_s1x1_p1x1_d1x1:${K}m16n64k32_w2_s3_ms_g1_v1_mg1_sk8la"
LOAD='total = tl.load(ws_ptr + dw_offs, mask=out_mask, cache_modifier=".cg")'
ZERO='tl.store(ws_ptr + dw_offs, tl.zeros_like(total), mask=out_mask)'
probe() {
  label=$1; shift; echo "== $label"; timeout 150 python3 -m bench.last_arrival_probe --fresh --repeats 4 "$@" $PAIRS
}
{
probe "as rendered"
XCHG="total = tl.atomic_xchg(ws_ptr + dw_offs, tl.zeros_like(acc), mask=out_mask)"
probe "read and zero by atomic exchange" --edit "$LOAD=>$XCHG" --edit "$ZERO=>pass"
probe "barrier after the count" --edit "# the tile's dw_offs above=>tl.debug_barrier()"
probe "no zeroing (first run only tells)" --edit "$ZERO=>pass"
} > $OUT/probe-variants.log 2>&1
cat $OUT/probe-variants.log | cut -c1-400

"""The C library's helper kernels (capi/aux_kernels.py) under the Triton interpreter, against what the Python runtime
does with torch (the build compiles them for sm_90 and sm_80: CMakeLists.txt's aux loop)."""
import importlib.util

import pytest
import torch
import triton

from gconv.paths import REPO_ROOT
from gconv.runtime.forward_twin import twin_filter

spec = importlib.util.spec_from_file_location("gconv_aux_kernels", REPO_ROOT / "capi" / "aux_kernels.py")
aux = importlib.util.module_from_spec(spec)
spec.loader.exec_module(aux)


@pytest.mark.parametrize("dtype, bits, variant", [(torch.float16, torch.int16, "twin16"),
                                                   (torch.float32, torch.int32, "twin32")])
@pytest.mark.parametrize("G, K, C, Y, X", [(3, 5, 4, 3, 2), (1, 1, 7, 1, 1), (2, 64, 24, 7, 7)])
def test_twin_filter_equals_the_runtimes(dtype, bits, variant, G, K, C, Y, X):
    """launch.c twin_filter's kernel writes the forward twin's filter packed channels_last, bit for bit the runtime's
    (G*C) x K x Y x X twin_filter, for the element widths the library launches it with."""
    function, signature = aux.VARIANTS[variant]
    assert function == "twin_filter" and signature["src"] == signature["dst"] == "*i" + variant[-2:]
    w = torch.randn(G * K, C, Y, X).to(dtype).contiguous(memory_format=torch.channels_last)
    out = torch.full((G * C * Y * X * K,), -1, dtype=bits)
    total = out.numel()
    grid = (triton.cdiv(total, aux.BLOCK.value),)
    getattr(aux, function)[grid](w.permute(0, 2, 3, 1).contiguous().view(bits), out, total, K, C, Y * X,
                                 num_warps=aux.NUM_WARPS)
    expected = twin_filter(w, G).permute(0, 2, 3, 1).contiguous().view(bits).reshape(-1)  # packed channels_last
    assert torch.equal(out, expected)

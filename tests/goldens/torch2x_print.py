"""Give Debian's PyTorch 1.13 the tensor printing of PyTorch 2.x (2.4 and later). Import it first.

One rule changed (pytorch PR 126859, "Fix max_width computation in _tensor_str._Formatter"): when
torch.set_printoptions(sci_mode=...) forces a notation, 2.x takes the column width from the notation
it prints in; 1.13 took it from the notation the automatic rule would have chosen. So under
sci_mode=False, 1.13 prints tensor([  100.0000,     0.0100]) and 2.x tensor([100.0000,   0.0100]).

1.13's _Formatter already decides int_mode and the notation (self.sci_mode) as 2.x does; this
replaces only its width step, and only when sci_mode is forced (otherwise both versions agree).
"""

import torch
from torch import _tensor_str

_init_113 = _tensor_str._Formatter.__init__


def _init_2x(self, tensor):
    _init_113(self, tensor)
    if not self.floating_dtype or _tensor_str.PRINT_OPTS.sci_mode is None:
        return
    view = tensor.reshape(-1)
    nonzero_finite_vals = torch.masked_select(view, torch.isfinite(view) & view.ne(0))
    precision = _tensor_str.PRINT_OPTS.precision
    self.max_width = 1
    for value in nonzero_finite_vals:
        if self.sci_mode:
            width = len("{:.{}e}".format(value.item(), precision))
        elif self.int_mode:
            width = len("{:.0f}".format(value.item())) + 1  # + the "." every finite value gets
        else:
            width = len("{:.{}f}".format(value.item(), precision))
        self.max_width = max(self.max_width, width)


_tensor_str._Formatter.__init__ = _init_2x

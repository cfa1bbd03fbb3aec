// What the notebook shows for a cell's last expression (IPython's display), against IPython 8.5's
// PlainTextFormatter on the same values (PyTorch 1.13 tensors, printed by PyTorch 2.x's rules):
//   /usr/bin/python3 -c "from IPython.core.formatters import PlainTextFormatter; ..."
#include <catch2/catch.hpp>

#include "llmfs/app/notebook.hpp"

using namespace llmfs;

TEST_CASE("ipython_repr of a state_dict: on one line when it fits, else one item a line") {
    CHECK(ipython_repr(StateDict{}) == "OrderedDict()");
    CHECK(ipython_repr(StateDict{{"a.weight", xt::xarray<float>{1.f, 2.f}}, {"b", xt::xarray<float>{0.5f}}}) ==
          "OrderedDict([('a.weight', tensor([1., 2.])), ('b', tensor([0.5000]))])");
    const StateDict mixed = {{"W_query.weight", xt::xarray<float>{1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f}},
                             {"W_key.weight", xt::xarray<float>{{1.f, 2.f}, {3.f, 4.f}}},
                             {"bias", xt::xarray<float>{0.25f, 0.5f, 0.75f, 1.f, 1.25f}}};
    CHECK(ipython_repr(mixed) ==
          "OrderedDict([('W_query.weight', tensor([1., 2., 3., 4., 5., 6., 7., 8.])),\n"
          "             ('W_key.weight',\n"
          "              tensor([[1., 2.],\n"
          "                      [3., 4.]])),\n"
          "             ('bias', tensor([0.2500, 0.5000, 0.7500, 1.0000, 1.2500]))])");
}

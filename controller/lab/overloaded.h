// Builds one visitor for std::visit out of several lambdas, one per alternative.
#pragma once

namespace testbed {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace testbed

"""The matching every generator solves: a maximum-cardinality pairing of least total cost.

Costs are tuples compared lexicographically (the first place counts most: a repeat pairing
before a score mismatch before a colour clash); they are folded into one integer weight per
edge with multipliers larger than any total of the places after them, so that the
maximum-weight matching (Edmonds' blossom algorithm, ``networkx``, exact on integers) is
the lexicographically cheapest among those pairing the most players.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import networkx as nx

Cost = tuple[int, ...]


def cheapest_matching(
    nodes: Sequence[Hashable], costs: Mapping[tuple[Hashable, Hashable], Cost]
) -> list[tuple[Hashable, Hashable]]:
    """The pairs of a maximum-cardinality matching over the edges ``costs`` names, cheapest first.

    ``costs`` maps an allowed pair to its cost tuple (non-negative integers, all of one
    length). Pairs come back in the order of ``nodes`` (the earlier node first, pairs sorted
    by their first node's position).
    """
    if not costs:
        return []
    places = len(next(iter(costs.values())))
    edges = len(nodes) // 2 + 1
    # Multipliers from the last place up: each exceeds every total the places after it reach.
    bounds = [max(cost[place] for cost in costs.values()) for place in range(places)]
    multipliers = [0] * places
    scale = 1
    for place in reversed(range(places)):
        multipliers[place] = scale
        scale *= bounds[place] * edges + 1
    ceiling = scale  # above every edge's folded cost: all weights stay positive
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for (a, b), cost in costs.items():
        folded = sum(
            value * multiplier for value, multiplier in zip(cost, multipliers, strict=True)
        )
        graph.add_edge(a, b, weight=ceiling - folded)
    matched = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    position = {node: index for index, node in enumerate(nodes)}
    ordered = [(a, b) if position[a] < position[b] else (b, a) for a, b in matched]
    return sorted(ordered, key=lambda pair: position[pair[0]])

# %% [markdown]
# # From networkx to gsi and back
#
# Zachary's karate club: 34 members, 78 friendships, and the club each member joined after
# the split (`"Mr. Hi"` or `"Officer"`). Which friendship triangles cross the split, one
# member of Mr. Hi's club with two of the officer's? gsi finds every such triangle, networkx
# checks the count, and matplotlib draws a few of them.
#
# Run it as a script (`python examples/networkx_matches.py -o matches.png`) or open it as a
# notebook (the `# %%` lines are cells for Jupyter, VS Code and jupytext).

# %%
import argparse
import sys

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script writes a file; a notebook shows the figure
import matplotlib.pyplot as plt
import networkx as nx
from networkx.algorithms import isomorphism

import gsi

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("-o", "--output", default="matches.png", help="where to draw the matches")
args, _ = parser.parse_known_args()

# %% [markdown]
# The data graph: every node's label is its club, read from the node attribute `club`.

# %%
G = nx.karate_club_graph()
matcher = gsi.Matcher(G, node_label="club")
print(matcher.graph)

# %% [markdown]
# The query: a triangle of one member of Mr. Hi's club and two of the officer's. Query
# nodes may have any names; gsi reports matches in the query's and the data's node ids.

# %%
Q = nx.Graph()
Q.add_node("hi", club="Mr. Hi")
Q.add_node("officer 1", club="Officer")
Q.add_node("officer 2", club="Officer")
Q.add_edges_from([("hi", "officer 1"), ("officer 1", "officer 2"), ("officer 2", "hi")])

count = matcher.count(Q)
print(f"{count} matches: {count // 2} triangles, each found twice (the two officers swap)")

# %% [markdown]
# networkx's own matcher agrees (it maps data nodes to query nodes, gsi the other way).

# %%
same_club = isomorphism.categorical_node_match("club", None)
reference = isomorphism.GraphMatcher(G, Q, node_match=same_club)
expected = sum(1 for _ in reference.subgraph_monomorphisms_iter())
assert count == expected, (count, expected)
print(f"networkx agrees: {expected}")

# %% [markdown]
# The first matches, as dicts `{query node: data node}`, and the same as a numpy array
# (one row per match, one column per query node, in `Q`'s node order).

# %%
for match in matcher.matches(Q, limit=3):
    print(match)
print(matcher.match_array(Q, limit=3))

# %% [markdown]
# Drawn: one match per triangle, in red on the whole club (members coloured by club).

# %%
triangles = {}
for match in matcher.matches(Q):
    triangles.setdefault(frozenset(match.values()), match)
first = list(triangles.values())
layout = nx.spring_layout(G, seed=7)
colours = ["#4c72b0" if G.nodes[v]["club"] == "Mr. Hi" else "#dd8452" for v in G]
fig, axes = plt.subplots(1, len(first), figsize=(5 * len(first), 5))
for ax, match in zip(axes, first):
    triangle = G.subgraph(match.values())
    nx.draw_networkx(
        G, layout, ax=ax, node_color=colours, node_size=120, with_labels=False, edge_color="#ccc"
    )
    nx.draw_networkx_edges(triangle, layout, ax=ax, edge_color="red", width=3)
    nx.draw_networkx_labels(G, layout, {v: str(v) for v in match.values()}, ax=ax, font_color="red")
    ax.set_title(", ".join(f"{q} → {d}" for q, d in match.items()), fontsize=9)
    ax.axis("off")
fig.tight_layout()
fig.savefig(args.output, dpi=80)
print(f"drew {len(first)} triangles to {args.output}")

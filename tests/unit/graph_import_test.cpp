// `testbed import graphml|gml`: real topologies as labs (controller/topology/import/
// zoo_graph.* and graph_file.*), on small graphs made here and on Internet Topology Zoo
// files (tests/data/zoo/README.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controller/lab/planner.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/import/graph_file.h"
#include "controller/topology/import/zoo_graph.h"
#include "controller/topology/topology_parser.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

std::string zoo(const std::string& file) {
  return TESTBED_TEST_DATA + "/zoo/" + file;
}

GraphNode at(const std::string& label, double lat, double lon) {
  return {label, label, lat, lon};
}

GraphImportOptions options() {
  GraphImportOptions o;
  o.lab = "tbzoo";
  o.source = "test";
  o.command = "test";
  return o;
}

// What the import writes is a profile that validates and plans.
Plan planned(const GraphProfile& p) {
  return make_plan(parse_topology_text(p.yaml, "imported.yaml", SettingRules{}), false);
}

TEST(GraphImport, DistanceIsTheGreatCircleAndDelayIsLightInFibre) {
  // New York to Los Angeles: 3,936 km on the sphere (3,944 km on the ellipsoid).
  EXPECT_NEAR(great_circle_km(40.71427, -74.00597, 34.05223, -118.24368), 3936, 5);
  EXPECT_DOUBLE_EQ(great_circle_km(10, 20, 10, 20), 0);
  ImportedGraph g;
  g.nodes = {at("New York", 40.71427, -74.00597), at("Los Angeles", 34.05223, -118.24368)};
  g.edges = {{0, 1, std::nullopt}};
  const GraphProfile p = import_graph(g, options());
  ASSERT_EQ(p.links.size(), 1u);
  // 3936 km at 204,218 km/s: 19.27 ms.
  EXPECT_NEAR(p.links[0].delay_us, 19274, 30);
  EXPECT_DOUBLE_EQ(p.links[0].rate_bps, 100e6);  // the stated default
  EXPECT_FALSE(p.links[0].rate_given);
  const Plan plan = planned(p);
  EXPECT_EQ(plan.links.size(), 1u);
  EXPECT_NE(p.yaml.find("CC BY 4.0"), std::string::npos);
}

TEST(GraphImport, NamesAreValidAndUnique) {
  const std::vector<GraphNode> nodes = {
      {"0", "New York", {}, {}},
      {"1", "New York", {}, {}},
      {"2", "", {}, {}},
      {"3", "Z\xc3\xbcrich (HB)", {}, {}},
      {"4", "A very long label that goes on and on beyond thirty two", {}, {}},
      {"5", "--", {}, {}}};
  EXPECT_EQ(zoo_node_names(nodes),
            (std::vector<std::string>{"new-york", "new-york-2", "n2", "z-rich-hb",
                                      "a-very-long-label-that-goes", "n5"}));
}

TEST(GraphImport, AGraphInPiecesIsRefusedWithItsComponentsOrCutToTheLargest) {
  ImportedGraph g;
  g.nodes = {at("a", 0, 0), at("b", 0, 1), at("c", 1, 0), at("lonely", 5, 5)};
  g.edges = {{0, 1, 1e9}, {1, 2, std::nullopt}, {0, 1, 2e9}, {2, 2, std::nullopt}};
  try {
    import_graph(g, options());
    FAIL() << "a graph in two pieces imported";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "the graph is not connected: 2 components: {'a', 'b', 'c'} (3 nodes), {'lonely'} "
              "(1 node); --largest-component imports the largest alone");
  }
  GraphImportOptions largest = options();
  largest.largest_component = true;
  largest.rate_scale = 0.01;
  const GraphProfile p = import_graph(g, largest);
  EXPECT_EQ(p.node_names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(p.nodes_left_out, 1u);
  EXPECT_EQ(p.self_loops, 1u);
  EXPECT_EQ(p.merged_edges, 1u);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_DOUBLE_EQ(p.links[0].rate_bps, 3e9 * 0.01);  // two parallel links, summed, scaled
  EXPECT_TRUE(p.links[0].rate_given);
  EXPECT_EQ(p.links[0].parallel, 2u);
  EXPECT_DOUBLE_EQ(p.links[1].rate_bps, 100e6 * 0.01);
  planned(p);
}

TEST(GraphImport, LinksWithoutCoordinatesNeedADefaultDelay) {
  ImportedGraph g;
  g.nodes = {at("a", 0, 0), {"7", "Somewhere", {}, {}}, at("c", 0, 1)};
  g.edges = {{0, 1, std::nullopt}, {0, 2, std::nullopt}};
  try {
    import_graph(g, options());
    FAIL() << "imported without a delay for 'Somewhere'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 linked node(s) have no coordinates ('Somewhere')"),
              std::string::npos)
        << e.what();
  }
  GraphImportOptions o = options();
  o.default_delay_us = 5000;
  const GraphProfile p = import_graph(g, o);
  EXPECT_EQ(p.default_delay_links, 1u);
  EXPECT_DOUBLE_EQ(p.links[0].delay_us, 5000);
  EXPECT_LT(p.links[0].distance_km, 0);
  EXPECT_NEAR(p.links[1].distance_km, 111.2, 0.5);  // a degree of longitude at the equator
  planned(p);
}

TEST(GraphImport, AbileneReadsTheSameFromGraphmlAndGml) {
  const ImportedGraph xml = read_graph_file(zoo("Abilene.graphml"), GraphFormat::graphml);
  const ImportedGraph gml = read_graph_file(zoo("Abilene.gml"), GraphFormat::gml);
  EXPECT_EQ(xml.name, "Abilene");
  ASSERT_EQ(xml.nodes.size(), 11u);
  EXPECT_EQ(xml.edges.size(), 14u);
  ASSERT_EQ(gml.nodes.size(), xml.nodes.size());
  ASSERT_EQ(gml.edges.size(), xml.edges.size());
  const GraphProfile a = import_graph(xml, options()), b = import_graph(gml, options());
  EXPECT_EQ(a.node_names, b.node_names);
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].a, b.links[i].a);
    EXPECT_EQ(a.links[i].b, b.links[i].b);
    EXPECT_DOUBLE_EQ(a.links[i].delay_us, b.links[i].delay_us);
  }
  EXPECT_EQ(a.node_names.front(), "new-york");
  EXPECT_EQ(a.default_delay_links, 0u);
  EXPECT_EQ(a.default_rate_links, a.links.size());  // Abilene's file gives no speeds
  EXPECT_EQ(planned(a).nodes.size(), 11u);
}

TEST(GraphImport, LinkSpeedsAreTakenWhereTheFileGivesThem) {
  // Aconet's peerings (GEANT, Level3, VIX, ...) have no coordinates: a default delay.
  GraphImportOptions o = options();
  o.default_delay_us = 1000;
  const GraphProfile p =
      import_graph(read_graph_file(zoo("Aconet.graphml"), GraphFormat::graphml), o);
  EXPECT_EQ(p.default_delay_links, 7u);  // six such nodes, seven links to them
  size_t given = 0;
  for (const auto& l : p.links) {
    if (!l.rate_given) continue;
    ++given;
    EXPECT_TRUE(l.rate_bps == 1e9 || l.rate_bps == 1e10 || l.rate_bps >= 2e9) << l.rate_bps;
  }
  EXPECT_GE(given, 1u);
  EXPECT_EQ(given + p.default_rate_links, p.links.size());
  planned(p);
}

TEST(GraphImport, AFileThatIsNoGraphIsRefusedWithWhatTheReaderSaid) {
  try {
    read_graph_file(zoo("Psnc.graphml"), GraphFormat::graphml);
    FAIL() << "Psnc.graphml read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Unknown attribute type 'integer'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_graph_file(zoo("Abilene.gml"), GraphFormat::graphml), std::invalid_argument);
  EXPECT_THROW(read_graph_file(zoo("nonexistent.graphml"), GraphFormat::graphml),
               std::invalid_argument);
}

}  // namespace
}  // namespace testbed

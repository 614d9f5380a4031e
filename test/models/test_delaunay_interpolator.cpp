// test/models/test_delaunay_interpolator.cpp — models::DelaunayInterpolator: linear functions reproduced exactly, no
// value outside the hull, bad input refused, and SciPy's LinearNDInterpolator matched query by query on the Pollux
// applications' degenerate (co-spherical) point sets (fixtures from test/fixtures/goodput/make_fixture.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/delaunay_interpolator.h"

using ringsched::models::DelaunayInterpolator;

namespace {

const std::string kFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/";

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
      cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

double num(const std::string& s) {
  return s == "nan" ? std::nan("") : std::stod(s);
}

}  // namespace

TEST_CASE("models::DelaunayInterpolator: reproduces a linear function exactly inside the hull", "[delaunay]") {
  // 3-d points on a lattice with extra points (a degenerate, co-spherical set, like the measured tables).
  std::vector<std::array<double, 3>> pts;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y)
      for (int z = 0; z < 3; ++z)
        pts.push_back({static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)});
  pts.push_back({1.5, 1.5, 1.0});
  Eigen::MatrixXd p(static_cast<Eigen::Index>(pts.size()), 3);
  Eigen::MatrixXd v(static_cast<Eigen::Index>(pts.size()), 2);
  auto f = [](double x, double y, double z) { return 2.0 * x - 3.0 * y + 0.5 * z + 7.0; };
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    p.row(r) << pts[i][0], pts[i][1], pts[i][2];
    v.row(r) << f(pts[i][0], pts[i][1], pts[i][2]), 1.0;
  }
  const DelaunayInterpolator ip(p, v);
  CHECK(ip.simplices() > 0);
  for (double x : {0.0, 0.3, 1.5, 2.999, 3.0}) {
    for (double y : {0.0, 1.25, 3.0}) {
      for (double z : {0.0, 0.7, 2.0}) {
        Eigen::VectorXd q(3);
        q << x, y, z;
        const auto out = ip(q);
        REQUIRE(out.has_value());
        CHECK((*out)[0] == Approx(f(x, y, z)).margin(1e-12));
        CHECK((*out)[1] == Approx(1.0).margin(1e-12));  // barycentric weights sum to one
      }
    }
  }
  // At a data point: its own value.
  Eigen::VectorXd q(3);
  q << 1.5, 1.5, 1.0;
  CHECK((*ip(q))[0] == Approx(f(1.5, 1.5, 1.0)).margin(1e-12));
}

TEST_CASE("models::DelaunayInterpolator: no value outside the hull or for a non-finite query", "[delaunay]") {
  Eigen::MatrixXd p(4, 2);
  p << 0, 0, 1, 0, 0, 1, 1, 1;
  Eigen::MatrixXd v(4, 1);
  v << 0, 1, 2, 3;
  const DelaunayInterpolator ip(p, v);
  Eigen::VectorXd q(2);
  q << 1.5, 0.5;
  CHECK_FALSE(ip(q).has_value());
  q << -1e-3, 0.5;
  CHECK_FALSE(ip(q).has_value());
  q << std::nan(""), 0.5;
  CHECK_FALSE(ip(q).has_value());
  q << 0.5, std::numeric_limits<double>::infinity();
  CHECK_FALSE(ip(q).has_value());
  // Bilinear corner values: the square's two triangles agree on the diagonal's ends; the centre is on the diagonal.
  q << 0.5, 0.5;
  REQUIRE(ip(q).has_value());
  CHECK((*ip(q))[0] == Approx(1.5));
  Eigen::VectorXd wrong(3);
  wrong << 0, 0, 0;
  CHECK_THROWS_AS(ip(wrong), std::invalid_argument);
}

TEST_CASE("models::DelaunayInterpolator: refuses point sets it cannot triangulate", "[delaunay]") {
  Eigen::MatrixXd v3(3, 1);
  v3 << 1, 2, 3;
  Eigen::MatrixXd three(3, 3);  // fewer than d + 1 points
  three << 0, 0, 0, 1, 0, 0, 0, 1, 0;
  CHECK_THROWS_AS(DelaunayInterpolator(three, v3), std::invalid_argument);
  Eigen::MatrixXd flat(5, 3);  // all in the plane z = 0
  flat << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 3, 0;
  Eigen::MatrixXd v5 = Eigen::MatrixXd::Ones(5, 1);
  CHECK_THROWS_WITH(DelaunayInterpolator(flat, v5), Catch::Contains("Qhull"));
  Eigen::MatrixXd bad(4, 2);
  bad << 0, 0, 1, 0, 0, std::nan(""), 1, 1;
  Eigen::MatrixXd v4 = Eigen::MatrixXd::Ones(4, 1);
  CHECK_THROWS_WITH(DelaunayInterpolator(bad, v4), Catch::Contains("non-finite"));
  Eigen::MatrixXd ok(4, 2);
  ok << 0, 0, 1, 0, 0, 1, 1, 1;
  CHECK_THROWS_WITH(DelaunayInterpolator(ok, v3), Catch::Contains("one row of values per point"));
  Eigen::MatrixXd line(4, 1);
  line << 0, 1, 2, 3;
  CHECK_THROWS_WITH(DelaunayInterpolator(line, v4), Catch::Contains("at least 2 coordinates"));
}

TEST_CASE("models::DelaunayInterpolator: answers as SciPy's LinearNDInterpolator on the measured tables",
          "[delaunay][fidelity]") {
  for (const std::string app : {"cifar10", "bert", "yolov3"}) {
    DYNAMIC_SECTION(app) {
      const auto pts = read_rows(kFixtures + app + "-points.csv");
      Eigen::MatrixXd p(static_cast<Eigen::Index>(pts.size()), 3);
      Eigen::MatrixXd v(static_cast<Eigen::Index>(pts.size()), 2);
      for (std::size_t i = 0; i < pts.size(); ++i) {
        const auto r = static_cast<Eigen::Index>(i);
        p.row(r) << num(pts[i][0]), num(pts[i][1]), num(pts[i][2]);
        v.row(r) << num(pts[i][3]), num(pts[i][4]);
      }
      const DelaunayInterpolator ip(p, v);
      int inside = 0;
      int outside = 0;
      for (const auto& row : read_rows(kFixtures + app + "-queries.csv")) {
        // Placement "a-b-c": nodes = parts (at most 16 in the key), GPUs = their sum.
        int nodes = 0;
        int gpus = 0;
        std::stringstream ss(row[0]);
        std::string part;
        while (std::getline(ss, part, '-')) {
          ++nodes;
          gpus += std::stoi(part);
        }
        Eigen::VectorXd q(3);
        q << std::min(nodes, 16), gpus, num(row[1]);
        const auto out = ip(q);
        const double step = num(row[2]);
        INFO(row[0] << " at " << row[1]);
        if (std::isnan(step)) {
          CHECK_FALSE(out.has_value());
          ++outside;
          continue;
        }
        REQUIRE(out.has_value());
        CHECK((*out)[0] == Approx(step).epsilon(1e-12));
        CHECK((*out)[1] == Approx(num(row[3])).epsilon(1e-12));
        ++inside;
      }
      CHECK(inside > 100);
      CHECK(outside > 0);
    }
  }
}

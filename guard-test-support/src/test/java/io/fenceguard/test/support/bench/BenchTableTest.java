package io.fenceguard.test.support.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run's table, written into the benchmark document between its markers, and its pictures beside it. */
class BenchTableTest {

    @TempDir
    Path root;

    @BeforeEach
    void aRunOfThisRoot() throws Exception {
        System.setProperty("bench.table", root.resolve("target/bench-table.md").toString());
        System.setProperty("bench.docs", "docs");
        Files.createDirectories(root.resolve("docs"));
    }

    @AfterEach
    void noRun() {
        System.clearProperty("bench.table");
        System.clearProperty("bench.docs");
    }

    @Test
    void rowsGoBetweenTheMarkersAndTheRestOfTheDocumentStays() throws Exception {
        Path document = root.resolve("docs/benchmarks.md");
        Files.writeString(document, "# Benchmarks\n\nbefore\n\n" + BenchTable.BEGIN + "\nan older run\n" + BenchTable.END
                + "\n\nafter\n");

        BenchTable.row("http", "PUT: JDBC, compact signed", 3610, "req/s", "no filter", 0.57, 0.92, 41.5, 30.25);
        BenchTable.row("redis", "script anchor", 8949, "ops/s", "–", Double.NaN, 0.891);
        BenchTable.print();

        String text = Files.readString(document);
        assertThat(text).startsWith("# Benchmarks\n\nbefore\n\n" + BenchTable.BEGIN + "\nRun of ")
                .endsWith(BenchTable.END + "\n\nafter\n")
                .doesNotContain("an older run")
                .contains(BenchTable.HEADER)
                .contains("| http | PUT: JDBC, compact signed | 3610.0 | req/s | no filter | 0.570 | 0.920 | 41.5 | 30.3 |")
                .contains("| redis | script anchor | 8949.0 | ops/s | – | – | 0.891 | – | – |");
        assertThat(Files.readString(root.resolve("target/bench-table.md"))).startsWith(BenchTable.HEADER);
    }

    @Test
    void aDocumentWithoutMarkersIsLeftAsItIs() throws Exception {
        Path document = root.resolve("docs/benchmarks.md");
        Files.writeString(document, "# Benchmarks\n");

        BenchTable.row("redis", "script anchor", 8949, "ops/s", "–", Double.NaN, 0.891);
        BenchTable.print();

        assertThat(Files.readString(document)).isEqualTo("# Benchmarks\n");
    }

    @Test
    void aChartIsWrittenBesideTheTableAndCopiedIntoTheDocuments() throws Exception {
        BenchChart chart = BenchChart.named("curve", "a curve", "resources");
        chart.panel("operations/s").point("lease", 1, 1000).point("lease", 1e6, 900).point("lease", 100, Double.NaN);
        chart.panel("CPU µs").point("lease", 1, 50).point("lease", 1e6, 55);

        Path png = chart.write();

        assertThat(png).isEqualTo(root.resolve("target/bench-curve.png"));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(900);
        assertThat(image.getHeight()).isGreaterThan(2 * 260);
        assertThat(Files.readAllBytes(root.resolve("docs/bench-curve.png"))).isEqualTo(Files.readAllBytes(png));
    }

    @Test
    void aLinearAxisSpreadsAFewCountsWhereALogarithmicOneCrowdsThem() {
        BenchChart logarithmic = BenchChart.named("log", "a curve", "instances");
        logarithmic.panel("requests/s").point("JDBC", 1, 500).point("JDBC", 2, 900);
        BenchChart linear = BenchChart.named("linear", "a curve", "instances").withLinearX();
        linear.panel("requests/s").point("JDBC", 1, 500).point("JDBC", 2, 900);

        BenchChart.XAxis log = logarithmic.xAxis();
        BenchChart.XAxis lin = linear.xAxis();

        // Logarithmic: one decade, 1 at its left end, 2 at 0.30 of it.
        assertThat(log.fraction(1)).isEqualTo(0.0);
        assertThat(log.fraction(2)).isCloseTo(Math.log10(2), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(log.ticks()).containsExactly(1, 10);
        // Linear: half a unit on either side, ticks at 1 and 2.
        assertThat(lin.fraction(1)).isEqualTo(0.25);
        assertThat(lin.fraction(2)).isEqualTo(0.75);
        assertThat(lin.ticks()).containsExactly(1, 2);
        assertThat(lin.label(2)).isEqualTo("2");
    }
}

package io.fenceguard.proof;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The picture of a run: one panel per workload with, over time, the tokens admitted per resource
 * (as their rank among the tokens granted for the resource, so that fenceguard's microsecond tokens
 * and Redisson's counters read alike), the tokens a fence rejected, and anomalies; fault starts are
 * vertical lines, and a last panel shows which fault each is.
 */
final class ProofChart {

    private static final int WIDTH = 1200;
    private static final Color[] RESOURCE_COLORS = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0x9467bd)};

    private ProofChart() {
    }

    static void write(ProofRun.Result run, Path png) throws IOException {
        Map<String, Map<Long, Integer>> ranks = ranks(run.history());
        List<BufferedImage> panels = new ArrayList<>();
        for (String workload : List.of("counter", "ledger", "http")) {
            panels.add(BitmapEncoder.getBufferedImage(panel(run, workload, ranks)));
        }
        panels.add(BitmapEncoder.getBufferedImage(faults(run)));
        stack(panels, png);
    }

    /**
     * The picture of a soak: one panel per resource that could leak (live heap, threads, pool connections, Redis
     * keys per master, the guard's table rows), a line per instance, master or table, over minutes.
     */
    static void soak(List<Map<String, Double>> samples, Path png) throws IOException {
        List<BufferedImage> panels = new ArrayList<>();
        for (String[] panel : List.of(new String[] {".live_mb", "live heap after GC (MB)"},
                new String[] {".heap_mb", "heap in use (MB)"}, new String[] {".threads", "live threads"},
                new String[] {".connections", "pool connections"}, new String[] {".keys", "Redis keys per master"},
                new String[] {"rows.", "rows per table"})) {
            XYChart chart = new XYChartBuilder().width(WIDTH).height(260).title(panel[1]).xAxisTitle("minutes").build();
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
            chart.getStyler().setChartBackgroundColor(Color.WHITE);
            chart.getStyler().setMarkerSize(3);
            for (String column : samples.get(0).keySet()) {
                if (column.contains(panel[0])) {
                    double[] x = samples.stream().mapToDouble(row -> row.get("minutes")).toArray();
                    double[] y = samples.stream().mapToDouble(row -> row.getOrDefault(column, Double.NaN)).toArray();
                    chart.addSeries(column.replace(panel[0], ""), x, y);
                }
            }
            panels.add(BitmapEncoder.getBufferedImage(chart));
        }
        stack(panels, png);
    }

    private static void stack(List<BufferedImage> panels, Path png) throws IOException {
        int height = panels.stream().mapToInt(BufferedImage::getHeight).sum();
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        int y = 0;
        for (BufferedImage panel : panels) {
            g.drawImage(panel, 0, y, null);
            y += panel.getHeight();
        }
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }

    /**
     * The matrix as bars: per fault, the anomalies (stale writes admitted, acknowledged writes lost,
     * duplicate tokens, wrong ledger totals) with fencing and without.
     */
    static void matrix(List<ProofMatrix.Outcome> outcomes, Path png) throws IOException {
        List<MatrixBars> bars = new ArrayList<>();
        for (ProofMatrix.Outcome o : outcomes) {
            if (!o.skipped()) {
                HistoryChecker.Findings on = o.on().findings();
                HistoryChecker.Findings off = o.off().findings();
                bars.add(new MatrixBars(o.row().name(), on.staleAdmitted(), on.lostAcknowledged(),
                        on.duplicateTokens() + on.ledgerMismatches(), off.staleAdmitted(), off.lostAcknowledged(),
                        off.duplicateTokens() + off.ledgerMismatches()));
            }
        }
        drawMatrix(bars, png);
    }

    /** One row of the matrix picture: its anomalies with fencing and without. */
    record MatrixBars(String fault, int onStale, int onLost, int onOther, int offStale, int offLost, int offOther) {
    }

    /**
     * Draws the picture again from a {@code matrix.json}: {@code ProofChart <matrix.json> <matrix.png>}
     * (the class path of fenceguard-proof), for a table whose picture was drawn by an older version.
     */
    public static void main(String[] args) throws IOException {
        tools.jackson.databind.JsonNode rows = HistoryFile.JSON.readTree(java.nio.file.Files.readString(Path.of(args[0])));
        List<MatrixBars> bars = new ArrayList<>();
        for (tools.jackson.databind.JsonNode row : rows) {
            if (row.has("skipped")) {
                continue;
            }
            tools.jackson.databind.JsonNode on = row.get("fencingOn");
            tools.jackson.databind.JsonNode off = row.get("fencingOff");
            bars.add(new MatrixBars(row.get("fault").asString(), on.get("staleWritesAdmitted").asInt(),
                    on.get("lostAcknowledgedWrites").asInt(),
                    on.get("duplicateTokens").asInt() + on.get("ledgerMismatches").asInt(),
                    off.get("staleWritesAdmitted").asInt(), off.get("lostAcknowledgedWrites").asInt(),
                    off.get("duplicateTokens").asInt() + off.get("ledgerMismatches").asInt()));
        }
        drawMatrix(bars, Path.of(args[1]));
    }

    /**
     * The matrix as bars: per fault, the anomalies (stale writes admitted, acknowledged writes lost,
     * duplicate tokens and wrong ledger totals) with fencing and without, each bar labelled with its count
     * (counts run from a few to thousands).
     */
    static void drawMatrix(List<MatrixBars> bars, Path png) throws IOException {
        if (bars.isEmpty()) {
            return;
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(560)
                .title("fault matrix: anomalies with fencing (must be 0) and without")
                .xAxisTitle("fault (row of the table)").yAxisTitle("count").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLabelRotation(25);
        chart.getStyler().setPlotGridLinesVisible(false);
        chart.getStyler().setLabelsVisible(true);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < bars.size(); i++) {
            String name = bars.get(i).fault();
            int cut = name.indexOf(" (");
            name = cut > 0 ? name.substring(0, cut) : name;
            cut = name.indexOf(':');
            names.add((i + 1) + ". " + (cut > 0 ? name.substring(0, cut) : name));
        }
        chart.addSeries("anomalies, fencing ON", names,
                bars.stream().map(b -> (Number) (b.onStale() + b.onLost() + b.onOther())).toList())
                .setFillColor(new Color(0x2ca02c));
        chart.addSeries("stale admitted, fencing OFF", names, bars.stream().map(b -> (Number) b.offStale()).toList())
                .setFillColor(new Color(0xd62728));
        chart.addSeries("acknowledged lost, fencing OFF", names, bars.stream().map(b -> (Number) b.offLost()).toList())
                .setFillColor(new Color(0xff9896));
        chart.addSeries("duplicate tokens + ledger wrong, fencing OFF", names,
                bars.stream().map(b -> (Number) b.offOther()).toList()).setFillColor(Color.GRAY);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static XYChart panel(ProofRun.Result run, String workload, Map<String, Map<Long, Integer>> ranks) {
        HistoryChecker.Findings f = run.findings();
        String title = workload.equals("counter") ? title(run) : workload;
        XYChart chart = new XYChartBuilder().width(WIDTH).height(290).title(title)
                .xAxisTitle("seconds").yAxisTitle(workload + ": token rank").build();
        style(chart, run);
        List<String> resources = run.history().stream().filter(op -> op.workload().equals(workload))
                .map(Op::resource).distinct().sorted().toList();
        for (int i = 0; i < resources.size(); i++) {
            String resource = resources.get(i);
            List<Op> admitted = run.history().stream().filter(op -> op.resource().equals(resource) && op.ok()).toList();
            addSeries(chart, "admitted " + resource + " (" + admitted.size() + ")", admitted, run, ranks, SeriesMarkers.CIRCLE,
                    RESOURCE_COLORS[i % RESOURCE_COLORS.length]);
        }
        List<Op> rejected = run.history().stream().filter(op -> op.workload().equals(workload) && op.fencedOff()
                && op.token() != null).toList();
        addSeries(chart, "rejected by a fence (" + rejected.size() + ")", rejected, run, ranks, SeriesMarkers.CROSS, new Color(0xd62728));
        List<double[]> anomalies = new ArrayList<>();
        for (HistoryChecker.Anomaly a : f.anomalies()) {
            if (Operations.workloadOf(a.resource()).equals(workload)) {
                Integer rank = ranks.getOrDefault(a.resource(), Map.of()).get(a.token());
                anomalies.add(new double[] {seconds(run, a.at()), rank == null ? 0 : rank});
            }
        }
        add(chart, "anomaly (" + anomalies.size() + ")", anomalies, SeriesMarkers.DIAMOND, Color.BLACK);
        for (FaultEvent fault : run.faults()) {
            chart.addAnnotation(new AnnotationLine(seconds(run, fault.start()), true, false));
        }
        return chart;
    }

    private static XYChart faults(ProofRun.Result run) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(230).title("faults injected")
                .xAxisTitle("seconds").yAxisTitle("fault").build();
        style(chart, run);
        List<String> kinds = run.faults().stream().map(FaultEvent::kind).distinct().sorted().toList();
        Color[] colors = {Color.ORANGE, Color.MAGENTA, Color.GRAY, Color.RED, Color.BLUE, Color.CYAN.darker(),
                Color.GREEN.darker()};
        for (int i = 0; i < kinds.size(); i++) {
            String kind = kinds.get(i);
            List<double[]> points = new ArrayList<>();
            for (FaultEvent e : run.faults()) {
                if (e.kind().equals(kind)) {
                    for (double t = seconds(run, e.start()); t <= seconds(run, e.end()) + 1e-9; t += 0.25) {
                        points.add(new double[] {t, i + 1});
                    }
                }
            }
            long count = run.faults().stream().filter(e -> e.kind().equals(kind)).count();
            add(chart, kind + " (" + count + ")", points, SeriesMarkers.SQUARE, colors[i % colors.length]);
        }
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(kinds.size() + 1.0);
        return chart;
    }

    private static void addSeries(XYChart chart, String name, List<Op> ops, ProofRun.Result run,
            Map<String, Map<Long, Integer>> ranks, org.knowm.xchart.style.markers.Marker marker, Color color) {
        List<double[]> points = new ArrayList<>();
        for (Op op : ops) {
            if (op.token() != null) {
                points.add(new double[] {seconds(run, op.end()), ranks.get(op.resource()).get(op.token())});
            }
        }
        add(chart, name, points, marker, color);
    }

    private static void add(XYChart chart, String name, List<double[]> points,
            org.knowm.xchart.style.markers.Marker marker, Color color) {
        if (points.isEmpty()) {
            points = List.of(new double[] {0, Double.NaN});   // keeps the legend entry
        }
        double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
        XYSeries series = chart.addSeries(name, x, y);
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        series.setMarker(marker);
        series.setMarkerColor(color);
    }

    private static void style(XYChart chart, ProofRun.Result run) {
        XYStyler styler = chart.getStyler();
        styler.setXAxisMin(0.0);
        styler.setXAxisMax(Math.ceil(seconds(run, run.endMillis())));
        styler.setPlotGridLinesVisible(false);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setMarkerSize(4);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setAnnotationLineColor(new Color(0, 0, 0, 40));
    }

    private static String title(ProofRun.Result run) {
        HistoryChecker.Findings f = run.findings();
        return String.format("fencing %s, %d clients, %ds, seed %d: anomalies %d (lost %d, stale %d, duplicate tokens %d,"
                        + " ledger %d), availability %.1f%%", run.fencing() ? "ON" : "OFF", run.settings().clients(),
                run.settings().duration().toSeconds(), run.settings().seed(), f.anomalyCount(), f.lostAcknowledged(),
                f.staleAdmitted(), f.duplicateTokens(), f.ledgerMismatches(), 100 * f.availability());
    }

    /** Per resource, each granted token's rank among the distinct tokens granted for it. */
    private static Map<String, Map<Long, Integer>> ranks(List<Op> history) {
        Map<String, TreeSet<Long>> tokens = new HashMap<>();
        history.stream().filter(op -> op.token() != null)
                .forEach(op -> tokens.computeIfAbsent(op.resource(), r -> new TreeSet<>()).add(op.token()));
        Map<String, Map<Long, Integer>> ranks = new HashMap<>();
        tokens.forEach((resource, set) -> {
            Map<Long, Integer> rank = new HashMap<>();
            int i = 0;
            for (long token : set) {
                rank.put(token, ++i);
            }
            ranks.put(resource, rank);
        });
        return ranks;
    }

    private static double seconds(ProofRun.Result run, long epochMillis) {
        return (epochMillis - run.startMillis()) / 1000.0;
    }
}

package io.fenceguard.test.support.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A cost curve of a benchmark run as a PNG: panels stacked over one x axis (logarithmic: resources or held leases
 * grow by powers of ten; linear with {@link #withLinearX()}: a few counts, such as application instances), a line
 * per series. Plain Java2D, so a run needs no plotting tool. Written to
 * {@code target/bench-NAME.png} of the build's root (beside the run's table) and, with {@code -Dbench.docs}, copied
 * into that directory, where the benchmark document shows it.
 */
public final class BenchChart {

    private static final int WIDTH = 900;
    private static final int PANEL_HEIGHT = 260;
    private static final int LEFT = 90;
    private static final int RIGHT = 230;
    private static final int TOP = 40;
    private static final int GAP = 50;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b)};

    private final String name;
    private final String title;
    private final String xLabel;
    private final List<Panel> panels = new ArrayList<>();
    private boolean linearX;

    private BenchChart(String name, String title, String xLabel) {
        this.name = name;
        this.title = title;
        this.xLabel = xLabel;
    }

    /** A chart written as {@code bench-NAME.png}, with {@code title} above and {@code xLabel} under its x axis. */
    public static BenchChart named(String name, String title, String xLabel) {
        return new BenchChart(name, title, xLabel);
    }

    /**
     * A linear x axis in place of the logarithmic one, ticks at whole numbers: for a few counts (1 and 2 application
     * instances), which a logarithmic axis would crowd into its first decade. Answers this chart.
     */
    public BenchChart withLinearX() {
        linearX = true;
        return this;
    }

    /** Adds a panel whose y axis reads {@code yLabel}; its series are added to what it answers. */
    public Panel panel(String yLabel) {
        Panel panel = new Panel(yLabel);
        panels.add(panel);
        return panel;
    }

    /** One panel: a line per series, points in the order given. */
    public static final class Panel {

        private final String yLabel;
        private final Map<String, List<double[]>> series = new LinkedHashMap<>();

        private Panel(String yLabel) {
            this.yLabel = yLabel;
        }

        /** Adds the point ({@code x}, {@code y}) to {@code series}; a {@code NaN} y is left out. */
        public Panel point(String series, double x, double y) {
            if (!Double.isNaN(y) && x > 0) {
                this.series.computeIfAbsent(series, s -> new ArrayList<>()).add(new double[] {x, y});
            }
            return this;
        }
    }

    /** Writes the picture; answers where, or null without {@code -Dbench.table} (no build root to write to). */
    public Path write() {
        Path target = BenchTable.target();
        if (target == null) {
            return null;
        }
        System.setProperty("java.awt.headless", "true");
        int height = TOP + panels.size() * (PANEL_HEIGHT + GAP) + 20;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            // The title on one line: a smaller font for a longer one.
            int size = 15;
            do {
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, size));
            } while (g.getFontMetrics().stringWidth(title) > WIDTH - 20 && --size > 9);
            g.drawString(title, 10, 24);
            XAxis xAxis = xAxis();
            for (int p = 0; p < panels.size(); p++) {
                draw(g, panels.get(p), TOP + p * (PANEL_HEIGHT + GAP), xAxis, p == panels.size() - 1);
            }
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(target);
            Path png = target.resolve("bench-" + name + ".png");
            ImageIO.write(image, "png", png.toFile());
            System.out.println("picture: " + png);
            Path docs = BenchTable.docs();
            if (docs != null) {
                Files.createDirectories(docs);
                Files.copy(png, docs.resolve(png.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
            return png;
        } catch (IOException e) {
            System.out.println("could not write the picture bench-" + name + ".png: " + e);
            return null;
        }
    }

    /**
     * The x axis of the points: from the power of ten at or below the least x to the one at or above the greatest
     * (at least one decade), or linear with half a unit (a tenth of the span, if more) on either side.
     */
    XAxis xAxis() {
        double[] range = range(0);
        if (linearX) {
            double pad = Math.max(0.5, (range[1] - range[0]) / 10);
            return new XAxis(false, range[0] - pad, range[1] + pad);
        }
        double max = Math.max(range[1], range[0] * 10);
        return new XAxis(true, Math.floor(Math.log10(range[0])), Math.ceil(Math.log10(max)));
    }

    /** The x axis: {@code low} and {@code high} in decades when {@code logarithmic}, else in x's own units. */
    record XAxis(boolean logarithmic, double low, double high) {

        /** Where {@code x} lies on the axis, 0 at its left end and 1 at its right. */
        double fraction(double x) {
            return logarithmic ? (Math.log10(x) - low) / Math.max(1, high - low) : (x - low) / (high - low);
        }

        /** The x values of the ticks: each power of ten, or each whole number (five steps over a longer span). */
        double[] ticks() {
            if (logarithmic) {
                double[] ticks = new double[(int) (high - low) + 1];
                for (int i = 0; i < ticks.length; i++) {
                    ticks[i] = Math.pow(10, low + i);
                }
                return ticks;
            }
            double first = Math.ceil(low);
            double last = Math.floor(high);
            if (last - first > 20) {
                double[] ticks = new double[6];
                for (int i = 0; i < ticks.length; i++) {
                    ticks[i] = low + (high - low) * i / 5;
                }
                return ticks;
            }
            double[] ticks = new double[(int) (last - first) + 1];
            for (int i = 0; i < ticks.length; i++) {
                ticks[i] = first + i;
            }
            return ticks;
        }

        String label(double tick) {
            if (logarithmic) {
                return "10^" + Math.round(Math.log10(tick));
            }
            return tick == Math.rint(tick) ? String.format("%,.0f", tick) : format(tick);
        }
    }

    /** Min and max of coordinate {@code axis} over every panel's points ({1, 10} without points). */
    private double[] range(int axis) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Panel panel : panels) {
            for (List<double[]> points : panel.series.values()) {
                for (double[] point : points) {
                    min = Math.min(min, point[axis]);
                    max = Math.max(max, point[axis]);
                }
            }
        }
        return min > max ? new double[] {1, 10} : new double[] {min, max};
    }

    private void draw(Graphics2D g, Panel panel, int top, XAxis xAxis, boolean last) {
        int width = WIDTH - LEFT - RIGHT;
        double yMax = 0;
        double yMin = 0;
        for (List<double[]> points : panel.series.values()) {
            for (double[] point : points) {
                yMax = Math.max(yMax, point[1]);
                yMin = Math.min(yMin, point[1]);
            }
        }
        // From zero, or from below it when a figure is negative (a difference, say).
        yMax = yMax <= 0 ? 1 : niceCeiling(yMax);
        yMin = yMin < 0 ? -niceCeiling(-yMin) : 0;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics metrics = g.getFontMetrics();
        g.setColor(new Color(0xdddddd));
        for (int i = 0; i <= 4; i++) {
            int y = top + PANEL_HEIGHT - i * PANEL_HEIGHT / 4;
            g.drawLine(LEFT, y, LEFT + width, y);
        }
        for (double tick : xAxis.ticks()) {
            int x = LEFT + (int) (xAxis.fraction(tick) * width);
            g.drawLine(x, top, x, top + PANEL_HEIGHT);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, top, width, PANEL_HEIGHT);
        for (int i = 0; i <= 4; i++) {
            int y = top + PANEL_HEIGHT - i * PANEL_HEIGHT / 4;
            String label = format(yMin + (yMax - yMin) * i / 4);
            g.drawString(label, LEFT - 6 - metrics.stringWidth(label), y + 4);
        }
        for (double tick : xAxis.ticks()) {
            int x = LEFT + (int) (xAxis.fraction(tick) * width);
            String label = xAxis.label(tick);
            g.drawString(label, x - metrics.stringWidth(label) / 2, top + PANEL_HEIGHT + 16);
        }
        if (last) {
            g.drawString(xLabel, LEFT + width / 2 - metrics.stringWidth(xLabel) / 2, top + PANEL_HEIGHT + 32);
        }
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(panel.yLabel, -(top + PANEL_HEIGHT / 2 + metrics.stringWidth(panel.yLabel) / 2), 18);
        rotated.dispose();
        int s = 0;
        for (Map.Entry<String, List<double[]>> series : panel.series.entrySet()) {
            Color color = COLORS[s % COLORS.length];
            g.setColor(color);
            g.setStroke(new BasicStroke(2f));
            int[] previous = null;
            for (double[] point : series.getValue()) {
                int x = LEFT + (int) (xAxis.fraction(point[0]) * width);
                int y = top + PANEL_HEIGHT - (int) ((point[1] - yMin) / (yMax - yMin) * PANEL_HEIGHT);
                g.fillOval(x - 4, y - 4, 8, 8);
                if (previous != null) {
                    g.drawLine(previous[0], previous[1], x, y);
                }
                previous = new int[] {x, y};
            }
            int legend = top + 16 + s * 18;
            g.fillRect(LEFT + width + 12, legend - 8, 14, 4);
            g.setColor(Color.BLACK);
            g.drawString(series.getKey(), LEFT + width + 32, legend - 2);
            s++;
        }
        g.setStroke(new BasicStroke(1f));
    }

    /** 1, 2 or 5 times a power of ten at or above {@code value}. */
    private static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String format(double value) {
        return Math.abs(value) >= 100 || value == 0 ? String.format("%,.0f", value) : String.format("%.3g", value);
    }
}

/**
 * Step charts over uPlot. Bonus values are levels that hold until the next
 * reading, so every line is drawn as steps, never as slopes between points.
 * Times are epoch milliseconds, shown in the viewer's time zone.
 */
import uPlot from "uplot";
import { formatBonus, formatDate, formatTime } from "./i18n/index.ts";

export interface ChartLine {
  readonly label: string;
  /** A CSS custom property holding the colour, such as --survivor. */
  readonly color: string;
  readonly values: readonly (number | null)[];
  readonly dashed?: boolean;
  /** A band drawn behind the line, from lo to hi. */
  readonly band?: { readonly lo: readonly (number | null)[]; readonly hi: readonly (number | null)[] };
}

export interface ChartData {
  readonly times: readonly number[];
  readonly lines: readonly ChartLine[];
}

export interface StepChart {
  update(data: ChartData): void;
  /** Shows the whole of the data again after a zoom. */
  resetZoom(): void;
  destroy(): void;
}

/** An axis time in the viewer's language and zone: hours for short spans, dates for long ones. */
function timeLabel(ms: number, spanMs: number): string {
  return spanMs <= 2 * 86_400_000 ? formatTime(ms) : formatDate(ms);
}

function cssColor(element: Element, property: string): string {
  return getComputedStyle(element).getPropertyValue(property).trim() || "#888";
}

function translucent(color: string): string {
  return color.startsWith("#") && color.length === 7 ? `${color}33` : color;
}

function build(element: HTMLElement, data: ChartData, onZoom: ((from: number, to: number) => void) | null) {
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const series: uPlot.Series[] = [{}];
  const columns: (readonly (number | null)[])[] = [data.times];
  const bands: uPlot.Band[] = [];
  for (const line of data.lines) {
    const color = cssColor(element, line.color);
    if (line.band) {
      const hiIndex = series.length;
      series.push({ label: `${line.label} (hi)`, stroke: "transparent", paths: stepped, points: { show: false } });
      columns.push(line.band.hi);
      series.push({ label: `${line.label} (lo)`, stroke: "transparent", paths: stepped, points: { show: false } });
      columns.push(line.band.lo);
      bands.push({ series: [hiIndex, hiIndex + 1], fill: translucent(color) });
    }
    series.push({ label: line.label, stroke: color, width: 2, paths: stepped, dash: line.dashed ? [6, 4] : undefined, points: { show: false }, spanGaps: false });
    columns.push(line.values);
  }
  const text = cssColor(element, "--text-muted");
  const grid = cssColor(element, "--grid");
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const options: uPlot.Options = {
    width: Math.max(240, element.clientWidth),
    height: 220,
    ms: 1,
    series,
    bands,
    legend: { show: false },
    scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(25, Math.ceil((Math.max(min, max) + 5) / 25) * 25)] } },
    axes: [
      { ...axis, size: 44, space: 90, values: (u, ticks) => ticks.map((ms) => timeLabel(ms, (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0))) },
      { ...axis, size: 64, values: (_u, ticks) => ticks.map((v) => formatBonus(v)) },
    ],
    cursor: { drag: { x: onZoom !== null, y: false, setScale: false } },
    hooks: onZoom
      ? {
          setSelect: [
            (u) => {
              if (u.select.width < 4) return;
              const from = u.posToVal(u.select.left, "x");
              const to = u.posToVal(u.select.left + u.select.width, "x");
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              onZoom(from, to);
            },
          ],
        }
      : {},
  };
  return new uPlot(options, columns as uPlot.AlignedData, element);
}

/** A step chart filling `element`'s width; `onZoom` receives a dragged time range. */
export function stepChart(element: HTMLElement, data: ChartData, onZoom: ((from: number, to: number) => void) | null = null): StepChart {
  let plot = build(element, data, onZoom);
  let current = data;
  const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, element.clientWidth), height: 220 }));
  resize.observe(element);
  return {
    update(next) {
      current = next;
      plot.destroy();
      plot = build(element, next, onZoom);
    },
    resetZoom() {
      plot.destroy();
      plot = build(element, current, onZoom);
    },
    destroy() {
      resize.disconnect();
      plot.destroy();
    },
  };
}

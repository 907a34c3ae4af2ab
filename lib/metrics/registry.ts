import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from "prom-client";
import { processSingleton } from "@/lib/singleton";

// One Prometheus registry per process. The process holds two copies of lib/ (lib/singleton.ts): the
// server's, which serves the API fast path, runs the jobs and answers GET /metrics, and Next's
// bundle. Both must record into the metrics that /metrics reads, so the registry lives in a process
// slot and each metric is created once, by name, by whichever copy asks first.

export const METRIC_PREFIX = "payments_";

export const metricsRegistry: Registry = processSingleton("metrics-registry", () => {
  const registry = new Registry();
  // CPU, memory, heap, event-loop lag, GC, open handles: prom-client's standard process metrics. The
  // lag is sampled every 100 ms, not every 10 (prom-client's default): a timer firing 100 times a
  // second cost an idle process ~5 ms of CPU a second, and lag shorter than 100 ms between two
  // samples still shows in the one that waited for it.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  return registry;
});

function existing<T>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

export function counter<L extends string>(config: Omit<CounterConfiguration<L>, "registers">): Counter<L> {
  return existing<Counter<L>>(config.name) ?? new Counter({ ...config, registers: [metricsRegistry] });
}

export function gauge<L extends string>(config: Omit<GaugeConfiguration<L>, "registers">): Gauge<L> {
  return existing<Gauge<L>>(config.name) ?? new Gauge({ ...config, registers: [metricsRegistry] });
}

export function histogram<L extends string>(config: Omit<HistogramConfiguration<L>, "registers">): Histogram<L> {
  return existing<Histogram<L>>(config.name) ?? new Histogram({ ...config, registers: [metricsRegistry] });
}

package bench

import (
	"context"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tablekit/tablekit/otelkit"
)

// noopExporter drops every span batch.
type noopExporter struct{}

func (noopExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (noopExporter) Shutdown(context.Context) error                             { return nil }

// benchTelemetry is otelkit on the SDK's tracer provider: every span
// sampled and handed to a no-op exporter. batch puts the SDK's batch
// span processor in front of the exporter, as a production setup does;
// without it the spans go to the exporter synchronously (WithSyncer),
// which measures the span and our tracer without the batch processor's
// hand-off to its goroutine (a wake-up per span when the processor is
// idle, about 5 µs of the 2 cores here). metered adds the SDK's meter
// provider, aggregating the metrics for a manual reader; without it the
// metrics go to OpenTelemetry's no-op meter provider.
func benchTelemetry(batch, metered bool) *otelkit.Telemetry {
	exp := sdktrace.WithSyncer(noopExporter{})
	if batch {
		exp = sdktrace.WithBatcher(noopExporter{})
	}
	tp := sdktrace.NewTracerProvider(exp)
	var mp metric.MeterProvider = noop.NewMeterProvider()
	if metered {
		mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	}
	tel, err := otelkit.New(func(o *otelkit.Options) { o.TracerProvider = tp; o.MeterProvider = mp })
	if err != nil {
		panic(err)
	}
	return tel
}

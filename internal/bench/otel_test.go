package bench

import (
	"context"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tablekit/tablekit/otelkit"
)

// noopExporter drops every span batch.
type noopExporter struct{}

func (noopExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (noopExporter) Shutdown(context.Context) error                             { return nil }

// benchTelemetry is otelkit on the SDK: every span sampled and batched to
// a no-op exporter, metrics aggregated for a manual reader.
func benchTelemetry() *otelkit.Telemetry {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(noopExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tel, err := otelkit.New(func(o *otelkit.Options) { o.TracerProvider = tp; o.MeterProvider = mp })
	if err != nil {
		panic(err)
	}
	return tel
}

package app

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/fx"

	"cairn.dev/cairn/app/config"
)

// StartTimeout bounds a start: connecting, migrating the embedded database,
// starting the job queue and the listener.
const StartTimeout = 30 * time.Second

// Serve runs a product's server until SIGINT or SIGTERM, then stops it
// within the configured grace. Once it is started, started is called (to
// tell a person how to reach it, say); its error stops the server. targets
// are filled from the application as fx.Populate fills them, before
// started runs.
func Serve(p Product, cfg config.Config, log *slog.Logger, started func(ctx context.Context, s *Server) error, targets ...any) error {
	var srv *Server
	fxApp := fx.New(Options(p, cfg, log), fx.Populate(append([]any{&srv}, targets...)...))
	if err := fxApp.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if err := fxApp.Start(ctx); err != nil {
		return err
	}
	if started != nil {
		if err := started(ctx, srv); err != nil {
			_ = fxApp.Stop(context.Background())
			return err
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	got := <-sig
	log.Info("shutting down", "signal", got.String(), "grace", cfg.ShutdownGrace)
	stopCtx, stop := context.WithTimeout(context.Background(), cfg.ShutdownGrace+5*time.Second)
	defer stop()
	return fxApp.Stop(stopCtx)
}

package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"

	deskhttp "desk/http"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "serve", Summary: "run the desk: the web page and the HTTP API", Run: runServe})
}

func runServe(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("serve", c)
	port := fs.Int("port", deskhttp.DefaultPort, "port to listen on (0 picks a free one)")
	open := fs.Bool("open", false, "open the desk in the browser")
	lan := fs.Bool("lan", false, "listen on every interface, with no authentication: trusted networks only")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("serve", "unexpected argument %q", fs.Arg(0))
	}
	if *port < 0 || *port > 65535 {
		return Usagef("serve", "--port %d is not a port", *port)
	}
	db, err := sqlite.Open(ctx, c.DataDir, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	host := "127.0.0.1"
	if *lan {
		host = "0.0.0.0"
	}
	logger := slog.New(slog.NewTextHandler(c.Stderr, nil))
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: net.JoinHostPort(host, strconv.Itoa(*port)), LAN: *lan, Logger: logger})
	if err := srv.Open(); err != nil {
		return fmt.Errorf("listen on port %d: %w (is another desk running? desk stop, or pick --port)", *port, err)
	}
	defer srv.Close()
	url := srv.URL()
	if *lan {
		url = fmt.Sprintf("http://<this machine's address>:%d", srv.Addr().(*net.TCPAddr).Port)
		fmt.Fprintln(c.Stdout, "warning: --lan has no authentication; anyone on this network can read and change this desk")
	}
	fmt.Fprintf(c.Stdout, "desk is running at %s (data: %s); Ctrl+C stops it\n", url, c.DataDir)
	if *open {
		openBrowser(srv.URL())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// openBrowser opens url in the default browser, quietly failing where
// there is none.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

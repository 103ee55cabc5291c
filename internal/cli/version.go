package cli

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// ErrVersionShown is what Parse returns after printing the version: it
// matches flag.ErrHelp, so a command that exits 0 after -h does the same
// after -version.
var ErrVersionShown = fmt.Errorf("version shown: %w", flag.ErrHelp)

// Parse adds -version to fs and parses args. With -version it prints the
// command's version (see Version) on stdout and returns ErrVersionShown;
// otherwise it returns what fs.Parse returns (flag.ErrHelp after -h). A
// command gets -version, and flags anywhere on its line (Permute), by
// calling Parse instead of fs.Parse.
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	show := fs.Bool("version", false, "print the version (module version and VCS revision) and exit")
	if err := fs.Parse(Permute(fs, args)); err != nil {
		return err
	}
	if *show {
		fmt.Fprintln(stdout, Version(fs.Name()))
		return ErrVersionShown
	}
	return nil
}

// Version describes the running binary for -version: the command's name,
// the module's version and the VCS revision it was built from, read from
// the build information Go embeds.
func Version(command string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return versionOf(command, info)
	}
	return versionOf(command, nil)
}

// versionOf is Version for given build information (nil: none), as
// "<command> <module version>, revision <rev> (<time>)[, modified]".
func versionOf(command string, info *debug.BuildInfo) string {
	version, rev, when, modified := "(unknown)", "unknown", "", false
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := fmt.Sprintf("%s %s, revision %s", command, version, rev)
	if when != "" {
		out += " (" + when + ")"
	}
	if modified {
		out += ", modified"
	}
	return out
}

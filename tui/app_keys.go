package tui

import "charm.land/bubbles/v2/key"

// appKeys are the keys every screen shares. They come after the dialogs
// (a dialog takes every key but ctrl+c) and before the screen's own keys.
type appKeys struct {
	Help key.Binding
	Log  key.Binding
	Quit key.Binding
}

func defaultAppKeys() appKeys {
	return appKeys{
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help: every key of this screen")),
		Log:  key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "messages: everything Gavel said")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit (your labels are saved)")),
	}
}

// short returns a copy of a binding with a shorter description, for the
// hint line, which has one line for every key it shows.
func short(b key.Binding, desc string) key.Binding {
	return relabel(b, b.Help().Key, desc)
}

// relabel returns a copy of a binding shown under other words: the keys
// it matches stay the same.
func relabel(b key.Binding, keys, desc string) key.Binding {
	b.SetHelp(keys, desc)
	return b
}

// hints are the shared keys as the hint line shows them.
func (k appKeys) hints() []key.Binding {
	return []key.Binding{short(k.Help, "help"), short(k.Log, "messages"), short(k.Quit, "quit")}
}

// all are the shared keys as the help overlay lists them.
func (k appKeys) all() []key.Binding { return []key.Binding{k.Help, k.Log, k.Quit} }

"""Drawing helpers shared by every scene: theme, fonts, widgets."""

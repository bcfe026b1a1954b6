"""Where researchers already work: BrowserGym tasks, a gymnasium wrapper, and play mode for people."""

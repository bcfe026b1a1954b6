"""Keystone Mutual's rules: precertification determinations and after filing, DME
criteria, corrected claims and appeals."""

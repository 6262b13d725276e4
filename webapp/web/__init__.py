"""The web layer: blueprints, security, and the view data the templates lay out."""

"""`python -m webapp.cli`: the skill-editor command, as the installed script runs it."""

from webapp.cli import main

if __name__ == "__main__":
    main()

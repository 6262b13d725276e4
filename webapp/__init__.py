"""Skill Editor: a skill editor and context previewer for LLM agents."""

__version__ = "0.1.0"

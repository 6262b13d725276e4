"""Line diffs with the changed words marked (`lines.diff_lines`, `words.WordMarker`), as
plain data a template lays out."""

#!/usr/bin/env python3
"""Summarise CSV files from SKILLBOT_INPUT_DIR into SKILLBOT_OUTPUT_DIR (standard library only)."""
import csv
import html
import os
import sys
from pathlib import Path

MAX_BARS = 30


def number(value):
    try:
        return float(value.replace(",", "").strip())
    except ValueError:
        return None


def read_table(path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        sample = handle.read(4096)
        handle.seek(0)
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
        rows = [row for row in csv.reader(handle, dialect) if any(cell.strip() for cell in row)]
    if not rows:
        return [], []
    return rows[0], rows[1:]


def numeric_columns(header, rows):
    columns = []
    for index, name in enumerate(header):
        values = [number(row[index]) for row in rows if index < len(row) and row[index].strip()]
        if values and all(value is not None for value in values):
            columns.append((index, name, values))
    return columns


def fmt(value):
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def chart_svg(title, labels, values):
    width, bar_height, left = 640, 22, 160
    height = 40 + bar_height * len(values)
    top = max(max(values), 0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<text x="10" y="20" font-size="14">{html.escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(zip(labels, values)):
        y = 30 + i * bar_height
        bar = max(0, value) / top * (width - left - 80)
        parts.append(f'<text x="10" y="{y + 15}">{html.escape(label[:22])}</text>')
        parts.append(f'<rect x="{left}" y="{y + 3}" width="{bar:.1f}" height="{bar_height - 6}" fill="#4a7bd0"/>')
        parts.append(f'<text x="{left + bar + 5:.1f}" y="{y + 15}">{fmt(value)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def summarise(path, out_dir):
    header, rows = read_table(path)
    stem = path.stem
    lines = [f"{path.name}: {len(rows)} rows, {len(header)} columns ({', '.join(header)})"]
    table = [f"# {path.name}", "", f"{len(rows)} rows, {len(header)} columns.", "", "| column | count | sum | mean | min | max |", "| --- | --- | --- | --- | --- | --- |"]
    numeric = numeric_columns(header, rows)
    for _, name, values in numeric:
        stats = (len(values), sum(values), sum(values) / len(values), min(values), max(values))
        lines.append(f"  {name}: count {stats[0]}, sum {fmt(stats[1])}, mean {fmt(stats[2])}, min {fmt(stats[3])}, max {fmt(stats[4])}")
        table.append(f"| {name} | {stats[0]} | {fmt(stats[1])} | {fmt(stats[2])} | {fmt(stats[3])} | {fmt(stats[4])} |")
    if not numeric:
        lines.append("  no numeric columns")
    (out_dir / f"{stem}-summary.md").write_text("\n".join(table) + "\n", encoding="utf-8")
    if numeric:
        index, name, _ = numeric[0]
        label_index = next((i for i in range(len(header)) if i not in {c[0] for c in numeric}), None)
        shown = rows[:MAX_BARS]
        labels = [row[label_index] if label_index is not None and label_index < len(row) else str(n + 1) for n, row in enumerate(shown)]
        values = [number(row[index]) or 0.0 for row in shown]
        (out_dir / f"{stem}-chart.svg").write_text(chart_svg(f"{name} by {header[label_index] if label_index is not None else 'row'}", labels, values), encoding="utf-8")
    return lines


def main():
    in_dir = os.environ.get("SKILLBOT_INPUT_DIR")
    out_dir = os.environ.get("SKILLBOT_OUTPUT_DIR")
    if not in_dir or not out_dir:
        print("SKILLBOT_INPUT_DIR and SKILLBOT_OUTPUT_DIR must be set (skillbot sets them).", file=sys.stderr)
        return 2
    inputs = Path(in_dir)
    if len(sys.argv) > 1:
        paths = [inputs / Path(sys.argv[1]).name]
    else:
        paths = sorted(p for p in inputs.iterdir() if p.suffix.lower() in {".csv", ".tsv"})
    if not paths or not all(p.is_file() for p in paths):
        print(f"No CSV file to summarise in the input folder (it holds: {', '.join(sorted(p.name for p in inputs.iterdir())) or 'nothing'}).", file=sys.stderr)
        return 1
    for path in paths:
        print("\n".join(summarise(path, Path(out_dir))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

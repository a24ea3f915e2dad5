#!/usr/bin/env python3
"""Checks stylesheets with PyPI's tinycss2 (a CSS Syntax Level 3 parser): every block, string and function
closed, every rule with a selector and a list of `name: value;` declarations, every at-rule a known one, and
every `var(--name)` defined in one of the files given. Prints `file:line:column: what` for each problem and
exits 1 if there was any. Run by deploy/local/check-assets.sh.

    check-css.py FILE.css...
"""
import sys

import tinycss2

RULE_LISTS = {"media", "supports", "container", "layer"}  # at-rules holding rules
DECLARATION_LISTS = {"font-face", "page", "property", "counter-style"}  # at-rules holding declarations
STATEMENTS = {"import", "charset", "namespace", "layer"}  # at-rules ending with `;`


def problems(path, source, defined, used):
    found = []

    def say(node, message):
        found.append(f"{path}:{node.source_line}:{node.source_column}: {message}")

    def tokens(values, where):
        # Errors inside values (an unmatched `)`, a bad string or url), and the custom properties used.
        for token in values:
            if token.type == "error":
                say(token, f"{token.message} ({where})")
            elif token.type == "function":
                if token.lower_name == "var" and token.arguments and token.arguments[0].type == "ident":
                    used.append((token, token.arguments[0].value))
                tokens(token.arguments, where)
            elif token.type in ("() block", "[] block", "{} block"):
                tokens(token.content, where)

    def declarations(content, where):
        for item in tinycss2.parse_declaration_list(content, skip_comments=True, skip_whitespace=True):
            if item.type == "error":
                # tinycss2 1.5 words this one as an unformatted template: say it plainly.
                message = "expected ':' after the property name" if item.message.startswith("Expected ':'") else item.message
                say(item, f"{message} (in {where})")
            elif item.type == "at-rule":
                say(item, f"@{item.at_keyword} inside {where}")
            elif not [t for t in item.value if t.type not in ("whitespace", "comment")]:
                say(item, f"'{item.name}' has no value (in {where})")
            else:
                if item.name.startswith("--"):
                    defined.add(item.name)
                tokens(item.value, f"'{item.name}' in {where}")

    def rules(nodes):
        for node in nodes:
            if node.type == "error":
                say(node, node.message)
            elif node.type == "qualified-rule":
                selector = tinycss2.serialize(node.prelude).strip()
                if not selector:
                    say(node, "a rule without a selector")
                tokens(node.prelude, f"selector '{selector}'")
                declarations(node.content, f"'{selector}'" if selector else "a rule")
            elif node.type == "at-rule":
                name = node.lower_at_keyword
                if node.content is None:
                    if name not in STATEMENTS:
                        say(node, f"@{node.at_keyword} needs a {{ block }}")
                elif name in RULE_LISTS:
                    tokens(node.prelude, f"@{name}")
                    rules(tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True))
                elif name in DECLARATION_LISTS:
                    declarations(node.content, f"@{name}")
                elif name == "keyframes":
                    for frame in tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True):
                        if frame.type == "qualified-rule":
                            declarations(frame.content, "a keyframe")
                        else:
                            rules([frame])
                else:
                    say(node, f"unknown at-rule @{node.at_keyword}")

    sheet = tinycss2.parse_stylesheet(source, skip_comments=True, skip_whitespace=True)
    rules(sheet)
    if not found:
        # The parser closes what the file left open (a block, a string, a comment) at its end: it then
        # does not read back as written. Name the first rule that changed.
        whole = tinycss2.parse_stylesheet(source)
        if tinycss2.serialize(whole) != source:
            changed = [n for n in whole if n.type != "whitespace" and tinycss2.serialize([n]) not in source]
            node = changed[0] if changed else whole[-1]
            say(node, "a block, a string or a comment is not closed before the end of the file")
    return found


def main(paths):
    if not paths:
        print("check-css: no files given (usage: check-css.py FILE.css...)", file=sys.stderr)
        return 2
    found, defined, used = [], set(), []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        before = len(used)
        found += problems(path, source, defined, used)
        used[before:] = [(path, token, name) for token, name in used[before:]]
    for path, token, name in used:
        if name not in defined:
            found.append(f"{path}:{token.source_line}:{token.source_column}: var({name}) is defined nowhere")
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

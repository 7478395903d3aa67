import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, linter } from '@codemirror/lint';
import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'react';

const SIZE = EditorView.theme({ '&': { maxHeight: '560px', fontSize: '12px' }, '.cm-scroller': { overflow: 'auto' } });
const JSON_EXTENSIONS = [lineNumbers(), bracketMatching(), json(), syntaxHighlighting(defaultHighlightStyle), EditorView.lineWrapping];

/**
 * A place for an editor in a shadow root of `host`. There CodeMirror adds its styles as
 * constructed style sheets; in the document it would add a <style> element, which the
 * console's content security policy (style-src 'self') refuses.
 */
function shadowMount(host: HTMLElement): { root: ShadowRoot; parent: HTMLElement } {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const parent = document.createElement('div');
  root.appendChild(parent);
  return { root, parent };
}

/**
 * A JSON editor (CodeMirror 6): `value` is what the page holds; what the user types goes
 * to `onChange`. A `value` that changes from elsewhere (the form, the tree) replaces the
 * text, unless it is the text already shown (the user's own edit coming back).
 */
export function JsonEditor({ value, onChange, label }: { value: string; onChange: (text: string) => void; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const { root, parent } = shadowMount(host.current);
    const editor = new EditorView({
      parent,
      root,
      state: EditorState.create({
        doc: value,
        extensions: [
          ...JSON_EXTENSIONS,
          SIZE,
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          linter(jsonParseLinter()),
          lintGutter(),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      parent.remove();
      view.current = null;
    };
    // The editor is made once; later values arrive through the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  return <div className="code-editor" ref={host} />;
}

/** Two texts side by side, read-only, their differences marked (CodeMirror's merge view). */
export function JsonDiff({ before, after }: { before: string; after: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const { root, parent } = shadowMount(host.current);
    const readOnly = [...JSON_EXTENSIONS, EditorState.readOnly.of(true), EditorView.editable.of(false)];
    const merge = new MergeView({
      parent,
      root,
      a: { doc: before, extensions: readOnly },
      b: { doc: after, extensions: readOnly },
      collapseUnchanged: { margin: 3, minSize: 6 },
    });
    return () => {
      merge.destroy();
      parent.remove();
    };
  }, [before, after]);
  return <div className="json-diff" ref={host} />;
}

// The Markdown reader of the findings cards (www/common/markdown.js), in node: tables with and without
// outer pipes, escaped pipes, alignment, ragged rows, paragraphs and headings between tables, inline marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMarkdown, splitRow, inlineRuns } from '../../www/common/markdown.js';

test('rows split on unescaped pipes; \\| is a literal pipe', () => {
  assert.deepEqual(splitRow('| a | b |'), ['a', 'b']);
  assert.deepEqual(splitRow('a | b'), ['a', 'b']);
  assert.deepEqual(splitRow('| x \\| y | z \\|'), ['x | y', 'z |']);
  assert.deepEqual(splitRow('|| b |'), ['', 'b']);
  assert.deepEqual(splitRow('| −0.23 ± 0.78 | — |'), ['−0.23 ± 0.78', '—']);
});

test('tables, paragraphs and headings in order; alignment; ragged rows padded or cut', () => {
  const md = [
    '# Findings',
    'First line of text',
    'continues here.',
    '',
    '| predictor | Δ pp | note |',
    '|---|---:|:-:|',
    '| oracle | +2.68 | a \\| b |',
    '| noisy | -0.07 |',
    '| x | 1 | 2 | 3 |',
    'Between the tables, `code` and text.',
    '',
    'h | 1 | 6',
    ':--|--:|---',
    'A | 0.3 | 0.1',
    '',
    'not | a table',
    'because | no dashes',
  ].join('\n');
  const b = parseMarkdown(md);
  assert.deepEqual(b.map((x) => x.kind), ['heading', 'paragraph', 'table', 'paragraph', 'table', 'paragraph']);
  assert.deepEqual(b[0], { kind: 'heading', level: 1, text: 'Findings' });
  assert.equal(b[1].text, 'First line of text continues here.');
  assert.deepEqual(b[2].header, ['predictor', 'Δ pp', 'note']);
  assert.deepEqual(b[2].align, [null, 'right', 'center']);
  assert.deepEqual(b[2].rows, [['oracle', '+2.68', 'a | b'], ['noisy', '-0.07', ''], ['x', '1', '2']]);
  // a table ends at the first line without a pipe
  assert.equal(b[3].text, 'Between the tables, `code` and text.');
  assert.deepEqual(b[4].header, ['h', '1', '6']);
  assert.deepEqual(b[4].align, ['left', 'right', null]);
  assert.deepEqual(b[4].rows, [['A', '0.3', '0.1']]);
  assert.equal(b[5].text, 'not | a table because | no dashes');
  // a delimiter row of another width does not make a table
  assert.deepEqual(parseMarkdown('| a | b |\n|---|\n| 1 | 2 |').map((x) => x.kind), ['paragraph']);
  assert.deepEqual(parseMarkdown(''), []);
});

test('inline code and bold; unclosed marks stay text; nothing is markup', () => {
  assert.deepEqual(inlineRuns('run `packlab x` **now**'), [
    { kind: 'text', text: 'run ' }, { kind: 'code', text: 'packlab x' }, { kind: 'text', text: ' ' }, { kind: 'strong', text: 'now' }]);
  assert.deepEqual(inlineRuns('a `b **c** d` e'), [{ kind: 'text', text: 'a ' }, { kind: 'code', text: 'b **c** d' }, { kind: 'text', text: ' e' }]);
  assert.deepEqual(inlineRuns('<img src=x onerror=alert(1)> **x'), [{ kind: 'text', text: '<img src=x onerror=alert(1)> **x' }]);
});

test('*emphasis* and _emphasis_, but not arithmetic, lone stars or snake_case', () => {
  assert.deepEqual(inlineRuns('verdict *direction only* (_not reproduced_)'), [
    { kind: 'text', text: 'verdict ' }, { kind: 'em', text: 'direction only' }, { kind: 'text', text: ' (' },
    { kind: 'em', text: 'not reproduced' }, { kind: 'text', text: ')' }]);
  assert.deepEqual(inlineRuns('**bold** and *em*'), [{ kind: 'strong', text: 'bold' }, { kind: 'text', text: ' and ' }, { kind: 'em', text: 'em' }]);
  for (const plain of ['2*3*4 = 24', 'a * b * c', 'fit_test_name', '*unclosed', 'x* y*']) {
    assert.deepEqual(inlineRuns(plain), [{ kind: 'text', text: plain }], plain);
  }
  assert.deepEqual(inlineRuns('`*code*` *x*'), [{ kind: 'code', text: '*code*' }, { kind: 'text', text: ' ' }, { kind: 'em', text: 'x' }]);
});

test('bullet and numbered lists; an indented line continues its item; a plain line ends the list', () => {
  const b = parseMarkdown(['Intro.', '- first', '  continued', '* second', '', '1. one', '2) two', 'after', '', '- solo'].join('\n'));
  assert.deepEqual(b, [
    { kind: 'paragraph', text: 'Intro.' },
    { kind: 'list', ordered: false, items: ['first continued', 'second'] },
    { kind: 'list', ordered: true, items: ['one', 'two'] },
    { kind: 'paragraph', text: 'after' },
    { kind: 'list', ordered: false, items: ['solo'] },
  ]);
  // a table row is not a list item, and a table after a list still reads as a table
  assert.deepEqual(parseMarkdown('- a\n\n| x | y |\n|---|---|\n| 1 | 2 |').map((x) => x.kind), ['list', 'table']);
});

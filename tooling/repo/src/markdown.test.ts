import { describe, expect, it } from 'vitest';
import { anchors, headings, markdownLinks, slug } from './markdown.ts';

describe('markdownLinks', () => {
  it('finds inline links, images, reference definitions and HTML attributes, with their lines', () => {
    const text = [
      'See [the spec](docs/spec.md#42-write-endpoints "title") and ![shot](images/a.png).',
      '[ref]: ../other.md',
      '<img src="media/icon.png" alt="">',
      'Angle brackets: [x](<with space.md>).',
    ].join('\n');
    expect(markdownLinks(text)).toEqual([
      { target: 'docs/spec.md#42-write-endpoints', line: 1 },
      { target: 'images/a.png', line: 1 },
      { target: '../other.md', line: 2 },
      { target: 'media/icon.png', line: 3 },
      { target: 'with space.md', line: 4 },
    ]);
  });

  it('ignores links inside code blocks, code spans and HTML comments', () => {
    const text = [
      '```md',
      '[in a fence](missing.md)',
      '```',
      'Inline `[code](missing.md)` and <!-- [comment](missing.md) -->.',
      '~~~',
      '[tilde fence](missing.md)',
      '~~~',
      '[real](real.md)',
    ].join('\n');
    expect(markdownLinks(text)).toEqual([{ target: 'real.md', line: 8 }]);
  });
});

describe('slug', () => {
  it.each([
    ['4.2 Write endpoints', '42-write-endpoints'],
    ['Search (`find/item/<folders>/<text>`)', 'search-finditemfolderstext'],
    ['Limits (defaults; environment variable to change)', 'limits-defaults-environment-variable-to-change'],
    ["4.4 Server identification (Vaultline's addition)", '44-server-identification-vaultlines-addition'],
    ['TeamPass 3 (3.2.1.5)', 'teampass-3-3215'],
    ['Café ☕ and `snake_case`', 'café--and-snake_case'],
    ['A [linked](x.md) <em>word</em>', 'a-linked-word'],
  ])('gives %j the anchor GitHub gives it', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor);
  });
});

describe('headings and anchors', () => {
  it('reads ATX and setext headings outside code, numbering duplicates as GitHub does', () => {
    const text = [
      '# Title',
      '## Errors',
      '```',
      '# not a heading',
      '```',
      'Errors',
      '------',
      '### Errors ###',
      '<a id="custom-place"></a>',
    ].join('\n');
    expect(headings(text).map((heading) => heading.anchor)).toEqual([
      'title',
      'errors',
      'errors-1',
      'errors-2',
    ]);
    expect([...anchors(text)]).toEqual(['title', 'errors', 'errors-1', 'errors-2', 'custom-place']);
  });
});

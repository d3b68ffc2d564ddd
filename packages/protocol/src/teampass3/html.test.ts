import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTeamPassEntities, escapeLikeTeamPass, escapeSpecialCharsLikeTeamPass } from './html.ts';

// Sent to a real TeamPass 3.2.1.5, and the label and login as it answered them (recorded).
const RECORDED = [
  {
    typed: 'Ärger € ß α “quoted” – Zoë Ñandú Привет 中文 🚀',
    stored:
      '&Auml;rger &euro; &szlig; &alpha; &ldquo;quoted&rdquo; &ndash; Zo&euml; &Ntilde;and&uacute; Привет 中文 🚀',
  },
  { typed: 'zoë.müller', stored: 'zo&euml;.m&uuml;ller' },
  { typed: 'Müller Zugang', stored: 'M&uuml;ller Zugang' },
  {
    typed: `Café & <Bar> "quoted" 'apos' ☕`,
    stored: 'Caf&eacute; &amp; &lt;Bar&gt; &quot;quoted&quot; &#039;apos&#039; ☕',
  },
  { typed: '<b>barista</b>&co', stored: '&lt;b&gt;barista&lt;/b&gt;&amp;co' },
  { typed: "o'neil", stored: 'o&#039;neil' },
];

describe('escapeLikeTeamPass (FILTER_SANITIZE_FULL_SPECIAL_CHARS)', () => {
  it.each(RECORDED)('stores $typed as TeamPass 3.2.1.5 did', ({ typed, stored }) => {
    expect(escapeLikeTeamPass(typed)).toBe(stored);
  });

  it('names every character HTML 4.01 names, and only those', () => {
    expect(escapeLikeTeamPass('\u00a0©®°±µ¶·¼½¾×÷ŒœŠšŸˆ˜ƒΩω…‰′″™←⇔∀∞≠≤≥♠♦')).toBe(
      '&nbsp;&copy;&reg;&deg;&plusmn;&micro;&para;&middot;&frac14;&frac12;&frac34;&times;&divide;' +
        '&OElig;&oelig;&Scaron;&scaron;&Yuml;&circ;&tilde;&fnof;&Omega;&omega;&hellip;&permil;' +
        '&prime;&Prime;&trade;&larr;&hArr;&forall;&infin;&ne;&le;&ge;&spades;&diams;',
    );
    // HTML5 names these, HTML 4.01 does not: PHP keeps them as typed.
    expect(escapeLikeTeamPass('ĀăĐŁńőŕ ПрЖ ⟨⟩ ★ ✓ 𝔸')).toBe('ĀăĐŁńőŕ ПрЖ ⟨⟩ ★ ✓ 𝔸');
  });

  it('does not encode an entity twice, as PHP without double encoding', () => {
    expect(escapeLikeTeamPass('AT&amp;T &#039; &#x27; &eacute; &apos; &nope; & x')).toBe(
      'AT&amp;T &#039; &#x27; &eacute; &amp;apos; &amp;nope; &amp; x',
    );
  });
});

describe('escapeSpecialCharsLikeTeamPass (htmlspecialchars)', () => {
  it('escapes the five characters only, twice when asked twice', () => {
    expect(escapeSpecialCharsLikeTeamPass(`Équipe R&D <"'> ünïcode &amp;`)).toBe(
      'Équipe R&amp;D &lt;&quot;&#039;&gt; ünïcode &amp;amp;',
    );
  });
});

describe('decodeTeamPassEntities', () => {
  it.each(RECORDED)('reads $stored back as it was typed', ({ typed, stored }) => {
    expect(decodeTeamPassEntities(stored)).toBe(typed);
  });

  it('decodes any HTML5 entity once, and leaves unknown or unterminated ones', () => {
    expect(decodeTeamPassEntities('&amp;amp; &apos; &#x1F680; &Pcy; &star; &nope; &auml &')).toBe(
      "&amp; ' 🚀 П ☆ &nope; &auml &",
    );
  });
});

describe('storing and reading back', () => {
  it('gives back any text without an entity in it, as typed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (typed) => {
        const text = typed.replace(/&(?=[#A-Za-z0-9]+;)/g, '& ');
        expect(decodeTeamPassEntities(escapeLikeTeamPass(text))).toBe(text);
        expect(decodeTeamPassEntities(escapeSpecialCharsLikeTeamPass(text))).toBe(text);
      }),
    );
  });
});

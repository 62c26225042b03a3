/**
 * Flags as small inline SVGs (SPEC §17.1): emoji flags render as two letters
 * on Windows, so the board never shows one. Each is a simplified drawing on a
 * 3:2 field, a few hundred bytes; a region the catalogue was given by the
 * operator, with no flag here, gets a neutral globe.
 */
import { Component, type JSX } from "preact";
import { BUILT_IN_REGIONS } from "../../domain/catalogue.ts";

type Shapes = () => JSX.Element;

const stripesV = (a: string, b: string, c: string) => () => (
  <>
    <rect width="10" height="20" fill={a} />
    <rect x="10" width="10" height="20" fill={b} />
    <rect x="20" width="10" height="20" fill={c} />
  </>
);

const stripesH = (a: string, b: string, c: string) => () => (
  <>
    <rect width="30" height="7" fill={a} />
    <rect y="6.67" width="30" height="7" fill={b} />
    <rect y="13.33" width="30" height="6.67" fill={c} />
  </>
);

const unionJack = () => (
  <>
    <rect width="30" height="20" fill="#012169" />
    <path d="M0 0L30 20M30 0L0 20" stroke="#fff" stroke-width="4" />
    <path d="M0 0L30 20M30 0L0 20" stroke="#C8102E" stroke-width="1.5" />
    <path d="M15 0V20M0 10H30" stroke="#fff" stroke-width="6" />
    <path d="M15 0V20M0 10H30" stroke="#C8102E" stroke-width="3.5" />
  </>
);

const usStripes = () => Array.from({ length: 7 }, (_, i) => <rect key={i} y={(i * 2 * 20) / 13} width="30" height={20 / 13} fill="#B22234" />);

const FLAGS: Readonly<Record<string, Shapes>> = {
  IE: stripesV("#169B62", "#fff", "#FF883E"),
  DE: stripesH("#000", "#DD0000", "#FFCE00"),
  IN: () => (
    <>
      {stripesH("#FF9933", "#fff", "#138808")()}
      <circle cx="15" cy="10" r="2.6" fill="none" stroke="#000080" stroke-width="0.8" />
    </>
  ),
  GB: unionJack,
  US: () => (
    <>
      <rect width="30" height="20" fill="#fff" />
      {usStripes()}
      <rect width="12" height={(7 * 20) / 13} fill="#3C3B6E" />
    </>
  ),
  CA: () => (
    <>
      <rect width="30" height="20" fill="#fff" />
      <rect width="7.5" height="20" fill="#D80621" />
      <rect x="22.5" width="7.5" height="20" fill="#D80621" />
      <path d="M15 4l1.2 2.4 1.8-.6-.6 3.6 2.1-1.5.5 1.3 1.5-.2-1 2.5.8.6-3.8 2.1.4 1.3H15.5V17h-1v-1.5H11.1l.4-1.3-3.8-2.1.8-.6-1-2.5 1.5.2.5-1.3 2.1 1.5-.6-3.6 1.8.6z" fill="#D80621" />
    </>
  ),
  BR: () => (
    <>
      <rect width="30" height="20" fill="#009C3B" />
      <path d="M15 2.5L27 10 15 17.5 3 10z" fill="#FFDF00" />
      <circle cx="15" cy="10" r="4.2" fill="#002776" />
    </>
  ),
  SG: () => (
    <>
      <rect width="30" height="10" fill="#EF3340" />
      <rect y="10" width="30" height="10" fill="#fff" />
      <circle cx="7" cy="5" r="3.2" fill="#fff" />
      <circle cx="8.3" cy="5" r="3" fill="#EF3340" />
    </>
  ),
  AU: () => (
    <>
      <rect width="30" height="20" fill="#012169" />
      <svg width="15" height="10" viewBox="0 0 30 20">
        {unionJack()}
      </svg>
      <circle cx="7.5" cy="15" r="1.6" fill="#fff" />
      <circle cx="23" cy="5" r="0.9" fill="#fff" />
      <circle cx="20" cy="10" r="0.9" fill="#fff" />
      <circle cx="26" cy="9" r="0.9" fill="#fff" />
      <circle cx="23" cy="16" r="1" fill="#fff" />
    </>
  ),
  JP: () => (
    <>
      <rect width="30" height="20" fill="#fff" />
      <circle cx="15" cy="10" r="6" fill="#BC002D" />
    </>
  ),
  KR: () => (
    <>
      <rect width="30" height="20" fill="#fff" />
      <path d="M10 10a5 5 0 0 1 10 0z" fill="#CD2E3A" />
      <path d="M10 10a5 5 0 0 0 10 0z" fill="#0047A0" />
      <path d="M4 4l3 -2M5 5.5l3-2M22 2l3 2M23 3.5l3 2M4 16l3 2M5 14.5l3 2M22 18l3-2M23 16.5l3-2" stroke="#000" stroke-width="0.8" />
    </>
  ),
  HK: () => (
    <>
      <rect width="30" height="20" fill="#DE2910" />
      {[0, 72, 144, 216, 288].map((angle) => (
        <ellipse key={angle} cx="15" cy="7" rx="1.8" ry="3" fill="#fff" transform={`rotate(${angle} 15 10)`} />
      ))}
    </>
  ),
};

/** The country behind each built-in region, from the catalogue (SPEC §4). */
const COUNTRY: ReadonlyMap<string, string> = new Map(BUILT_IN_REGIONS.flatMap((r) => (r.country ? [[r.id, r.country] as const] : [])));

const globe = () => (
  <>
    <rect width="30" height="20" fill="#3a4658" />
    <circle cx="15" cy="10" r="7" fill="none" stroke="#cfd8e3" stroke-width="1" />
    <path d="M8 10h14M15 3c-3.5 4-3.5 10 0 14M15 3c3.5 4 3.5 10 0 14" fill="none" stroke="#cfd8e3" stroke-width="0.8" />
  </>
);

export function hasFlag(region: string): boolean {
  const country = COUNTRY.get(region);
  return country !== undefined && FLAGS[country] !== undefined;
}

/** A region's flag; decorative, since the region's name is always written beside it. A stream message never redraws it. */
export class Flag extends Component<{ region: string }> {
  override shouldComponentUpdate(next: { region: string }): boolean {
    return next.region !== this.props.region;
  }

  override render() {
    const { region } = this.props;
    const country = COUNTRY.get(region);
    const shapes = (country ? FLAGS[country] : undefined) ?? globe;
    return (
      <svg class="flag" viewBox="0 0 30 20" width="24" height="16" aria-hidden="true" focusable="false" data-flag={country ?? "none"}>
        {shapes()}
      </svg>
    );
  }
}

const encoder = new TextEncoder();

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor), as the BR Code requires. */
export function crc16Ccitt(payload: string): string {
  let crc = 0xffff;
  for (const byte of encoder.encode(payload)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

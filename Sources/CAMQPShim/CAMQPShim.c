#include "CAMQPShim.h"

#include <string.h>

amqp_rpc_reply_t camqp_login_plain(amqp_connection_state_t state,
                                   const char *vhost, int channel_max,
                                   int frame_max, int heartbeat,
                                   const char *user, const char *password,
                                   const char *connection_name) {
  amqp_table_entry_t capabilities[2];
  capabilities[0].key = amqp_cstring_bytes("consumer_cancel_notify");
  capabilities[0].value.kind = AMQP_FIELD_KIND_BOOLEAN;
  capabilities[0].value.value.boolean = 1;
  capabilities[1].key = amqp_cstring_bytes("connection.blocked");
  capabilities[1].value.kind = AMQP_FIELD_KIND_BOOLEAN;
  capabilities[1].value.value.boolean = 1;

  amqp_table_entry_t entries[2];
  entries[0].key = amqp_cstring_bytes("connection_name");
  entries[0].value.kind = AMQP_FIELD_KIND_UTF8;
  entries[0].value.value.bytes = amqp_cstring_bytes(connection_name);
  entries[1].key = amqp_cstring_bytes("capabilities");
  entries[1].value.kind = AMQP_FIELD_KIND_TABLE;
  entries[1].value.value.table.num_entries = 2;
  entries[1].value.value.table.entries = capabilities;

  amqp_table_t properties;
  properties.num_entries = 2;
  properties.entries = entries;

  return amqp_login_with_properties(state, vhost, channel_max, frame_max,
                                    heartbeat, &properties,
                                    AMQP_SASL_METHOD_PLAIN, user, password);
}

camqp_frame_info camqp_method_inspect(amqp_method_t method,
                                      amqp_channel_t channel) {
  camqp_frame_info info;
  memset(&info, 0, sizeof(info));
  info.kind = camqp_frame_other;
  info.channel = channel;
  if (method.decoded == NULL) {
    return info;
  }
  switch (method.id) {
  case AMQP_BASIC_ACK_METHOD: {
    const amqp_basic_ack_t *m = method.decoded;
    info.kind = camqp_frame_basic_ack;
    info.delivery_tag = m->delivery_tag;
    info.multiple = m->multiple;
    break;
  }
  case AMQP_BASIC_NACK_METHOD: {
    const amqp_basic_nack_t *m = method.decoded;
    info.kind = camqp_frame_basic_nack;
    info.delivery_tag = m->delivery_tag;
    info.multiple = m->multiple;
    break;
  }
  case AMQP_BASIC_DELIVER_METHOD: {
    const amqp_basic_deliver_t *m = method.decoded;
    info.kind = camqp_frame_basic_deliver;
    info.delivery_tag = m->delivery_tag;
    info.redelivered = m->redelivered;
    info.consumer_tag = m->consumer_tag;
    info.exchange = m->exchange;
    info.routing_key = m->routing_key;
    break;
  }
  case AMQP_BASIC_RETURN_METHOD: {
    const amqp_basic_return_t *m = method.decoded;
    info.kind = camqp_frame_basic_return;
    info.reply_code = m->reply_code;
    info.reply_text = m->reply_text;
    info.exchange = m->exchange;
    info.routing_key = m->routing_key;
    break;
  }
  case AMQP_BASIC_CANCEL_METHOD: {
    const amqp_basic_cancel_t *m = method.decoded;
    info.kind = camqp_frame_basic_cancel;
    info.consumer_tag = m->consumer_tag;
    break;
  }
  case AMQP_CHANNEL_CLOSE_METHOD: {
    const amqp_channel_close_t *m = method.decoded;
    info.kind = camqp_frame_channel_close;
    info.reply_code = m->reply_code;
    info.reply_text = m->reply_text;
    break;
  }
  case AMQP_CONNECTION_BLOCKED_METHOD: {
    const amqp_connection_blocked_t *m = method.decoded;
    info.kind = camqp_frame_connection_blocked;
    info.reply_text = m->reason;
    break;
  }
  case AMQP_CONNECTION_UNBLOCKED_METHOD:
    info.kind = camqp_frame_connection_unblocked;
    break;
  case AMQP_CONNECTION_CLOSE_METHOD: {
    const amqp_connection_close_t *m = method.decoded;
    info.kind = camqp_frame_connection_close;
    info.reply_code = m->reply_code;
    info.reply_text = m->reply_text;
    break;
  }
  default:
    break;
  }
  return info;
}

camqp_frame_info camqp_frame_inspect(const amqp_frame_t *frame) {
  if (frame->frame_type != AMQP_FRAME_METHOD) {
    camqp_frame_info info;
    memset(&info, 0, sizeof(info));
    info.kind = camqp_frame_other;
    info.channel = frame->channel;
    return info;
  }
  return camqp_method_inspect(frame->payload.method, frame->channel);
}

int camqp_send_channel_close_ok(amqp_connection_state_t state,
                                amqp_channel_t channel) {
  amqp_channel_close_ok_t ok;
  memset(&ok, 0, sizeof(ok));
  return amqp_send_method(state, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok);
}

int camqp_send_connection_close_ok(amqp_connection_state_t state) {
  amqp_connection_close_ok_t ok;
  memset(&ok, 0, sizeof(ok));
  return amqp_send_method(state, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
}
